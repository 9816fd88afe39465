// io/npy: the .npy header ({'descr': '<f4', 'fortran_order': False, 'shape': (...), } padded to a
// multiple of 64 bytes) and the raw little-endian data, written and read with every field
// checked. No equation. Read io/npy.hpp first.
#include "io/npy.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "io/atomic_file.hpp"

namespace empl {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

// The header for `descr` ('<f4', '<i8') and a Python shape tuple, padded to a multiple of 64.
std::string npy_header(const std::string& descr, const std::string& shape) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t unpadded = 10 + header.size() + 1;  // magic 6 + version 2 + length 2, newline 1
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string bytes(kMagic, 6);
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  return bytes;
}

}  // namespace

std::string npy_bytes(const Tensor& tensor) {
  // Python tuple syntax: "()", "(5,)", "(2, 3)".
  std::string shape = "(";
  for (int axis = 0; axis < tensor.rank(); ++axis)
    shape += (axis > 0 ? ", " : "") + std::to_string(tensor.shape()[axis]);
  shape += tensor.rank() == 1 ? ",)" : ")";
  std::string bytes = npy_header("<f4", shape);
  bytes.append(reinterpret_cast<const char*>(tensor.data()), static_cast<size_t>(tensor.numel()) * sizeof(float));
  return bytes;
}

std::string npy_bytes_int64(std::span<const int64_t> values) {
  std::string bytes = npy_header("<i8", "(" + std::to_string(values.size()) + ",)");
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(int64_t));  // little-endian host
  return bytes;
}

void save_npy(const std::string& path, const Tensor& tensor) { write_file_atomically(path, npy_bytes(tensor)); }

namespace {

// A .npy header has at most a few hundred bytes; NumPy itself refuses to read one above 10 000
// unless told to. This bound keeps a v2/v3 file's 4-byte length from asking for gigabytes.
constexpr size_t kMaxHeaderBytes = size_t{1} << 16;

// Where the header dict ends and the data begins, from the first 12 bytes (`prefix`) and the
// length of the whole file, before the header is read.
size_t header_end(const std::string& prefix, uint64_t file_size, const std::string& name, size_t& offset) {
  if (prefix.size() < 10 || prefix.compare(0, 6, kMagic, 6) != 0) fail(name, ": not a .npy file (wrong magic)");
  const int major = static_cast<unsigned char>(prefix[6]);
  size_t header_length;
  if (major == 1) {
    header_length = static_cast<unsigned char>(prefix[8]) | (static_cast<size_t>(static_cast<unsigned char>(prefix[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (prefix.size() < 12) fail(name, ": truncated .npy header");
    header_length = 0;
    for (int i = 0; i < 4; ++i) header_length |= static_cast<size_t>(static_cast<unsigned char>(prefix[8 + i])) << (8 * i);
    offset = 12;
  } else {
    fail(name, ": unsupported .npy version ", major);
  }
  if (header_length > kMaxHeaderBytes) fail(name, ": .npy header of ", header_length, " bytes, more than ", kMaxHeaderBytes);
  if (header_length > file_size - offset) fail(name, ": truncated .npy header (", header_length, " bytes announced)");
  return offset + header_length;
}

// The shape the header promises, checked against the `available` data bytes of the file before
// anything is allocated.
Shape parse_header(const std::string& header, size_t available, const std::string& name) {
  auto value_of = [&](const std::string& key) -> std::string {
    const size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) fail(name, ": .npy header has no '", key, "'");
    size_t start = header.find(':', at);
    if (start == std::string::npos) fail(name, ": malformed .npy header");
    start = header.find_first_not_of(' ', start + 1);
    if (start == std::string::npos) fail(name, ": malformed .npy header");
    const size_t end = header[start] == '(' ? header.find(')', start) + 1 : header.find_first_of(",}", start);
    if (end == std::string::npos || end == 0) fail(name, ": malformed .npy header");
    return header.substr(start, end - start);
  };
  const std::string descr = value_of("descr");
  if (descr != "'<f4'") fail(name, ": dtype ", descr, " is not supported (only float32 '<f4')");
  if (value_of("fortran_order") != "False") fail(name, ": Fortran-ordered arrays are not supported");
  const std::string shape_text = value_of("shape");
  std::vector<int64_t> dims;
  for (size_t i = 1; i < shape_text.size();) {
    if (shape_text[i] >= '0' && shape_text[i] <= '9') {
      int64_t value = 0;
      while (i < shape_text.size() && shape_text[i] >= '0' && shape_text[i] <= '9') {
        if (value > (int64_t{1} << 40)) fail(name, ": dimension too large in shape ", shape_text);
        value = value * 10 + (shape_text[i++] - '0');
      }
      dims.push_back(value);
    } else if (shape_text[i] == ',' || shape_text[i] == ' ' || shape_text[i] == ')') {
      ++i;
    } else {
      fail(name, ": malformed shape ", shape_text);
    }
  }
  if (dims.size() > 4) fail(name, ": ", dims.size(), " dimensions, at most 4 are supported");
  Shape shape;
  switch (dims.size()) {
    case 0: shape = Shape{}; break;
    case 1: shape = Shape{dims[0]}; break;
    case 2: shape = Shape{dims[0], dims[1]}; break;
    case 3: shape = Shape{dims[0], dims[1], dims[2]}; break;
    default: shape = Shape{dims[0], dims[1], dims[2], dims[3]}; break;
  }
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d != 0 && count > static_cast<int64_t>(available / sizeof(float)) / d + 1)
      fail(name, ": truncated: shape ", shape, " needs more data than the file holds (", available, " bytes)");
    count *= d;
  }
  const size_t expected = static_cast<size_t>(count) * sizeof(float);
  if (available != expected)
    fail(name, ": ", available < expected ? "truncated" : "trailing data", ": shape ", shape, " needs ", expected,
         " bytes of data, file has ", available);
  return shape;
}

}  // namespace

Tensor parse_npy(const std::string& bytes, const std::string& name) {
  size_t offset = 0;
  const size_t data_offset = header_end(bytes.substr(0, 12), bytes.size(), name, offset);
  const Shape shape = parse_header(bytes.substr(offset, data_offset - offset), bytes.size() - data_offset, name);
  Tensor tensor = Tensor::empty(shape, "npy array");
  const size_t size = static_cast<size_t>(tensor.numel()) * sizeof(float);
  if (size > 0) std::memcpy(tensor.data(), bytes.data() + data_offset, size);
  return tensor;
}

// Reads the magic and lengths, then the header, and only once the header's shape agrees with the
// file's size the data, straight into the tensor.
Tensor load_npy(const std::string& path) {
  InputFile file(path, kMaxInputBytes, ".npy file");
  std::string head = file.read(static_cast<size_t>(std::min<uint64_t>(file.size(), 12)));
  size_t offset = 0;
  const size_t data_offset = header_end(head, file.size(), path, offset);
  if (data_offset > head.size()) head += file.read(data_offset - head.size());
  const Shape shape = parse_header(head.substr(offset, data_offset - offset), file.size() - data_offset, path);
  Tensor tensor = Tensor::empty(shape, "npy array");
  const size_t size = static_cast<size_t>(tensor.numel()) * sizeof(float);
  // A header shorter than 2 bytes leaves data in `head` (v1: 10 + length < 12).
  const size_t early = head.size() - std::min(head.size(), data_offset);
  if (early > 0) std::memcpy(tensor.data(), head.data() + data_offset, early);
  if (size > early) file.read_into(reinterpret_cast<char*>(tensor.data()) + early, size - early);
  file.expect_end();
  return tensor;
}

}  // namespace empl
