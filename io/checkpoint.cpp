// io/checkpoint: the checkpoint format of io/checkpoint.hpp, written through io/atomic_file and
// read back with every length checked against the bytes that remain and the FNV-1a checksum
// (h ← (h ⊕ byte)·1099511628211) verified before a tensor is trusted. Read io/checkpoint.hpp first.
#include "io/checkpoint.hpp"

#include <cstring>

#include "core/error.hpp"
#include "io/atomic_file.hpp"

namespace empl {
namespace {

constexpr char kMagic[8] = {'E', 'M', 'P', 'L', 'C', 'K', 'P', 'T'};

uint64_t fnv1a(const char* data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ static_cast<unsigned char>(data[i])) * 0x100000001b3ULL;
  return hash;
}

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void put_string(std::string& out, const std::string& text) {
  put<uint32_t>(out, static_cast<uint32_t>(text.size()));
  out += text;
}

// Reads the file front to back; every read is checked against the bytes that remain.
class Reader {
 public:
  Reader(const std::string& bytes, size_t end, const std::string& name) : bytes_(bytes), end_(end), name_(name) {}
  void need(size_t n, const char* what) const {
    if (n > end_ - at_)
      fail(name_, ": truncated or corrupted: ", what, " needs ", n, " bytes at offset ", at_, ", ", end_ - at_, " remain");
  }
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string get_string(const char* what) {
    const uint32_t size = get<uint32_t>(what);
    need(size, what);
    std::string text = bytes_.substr(at_, size);
    at_ += size;
    return text;
  }
  const char* take(size_t n, const char* what) {
    need(n, what);
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  size_t remaining() const { return end_ - at_; }

 private:
  const std::string& bytes_;
  size_t end_, at_ = 0;
  const std::string& name_;
};

}  // namespace

std::string checkpoint_bytes(const std::vector<NamedTensor>& tensors, const std::map<std::string, std::string>& metadata) {
  std::string out(kMagic, sizeof kMagic);
  put<uint32_t>(out, kCheckpointVersion);
  put<uint32_t>(out, static_cast<uint32_t>(metadata.size()));
  for (const auto& [key, value] : metadata) {
    put_string(out, key);
    put_string(out, value);
  }
  put<uint32_t>(out, static_cast<uint32_t>(tensors.size()));
  for (const NamedTensor& t : tensors) {
    put_string(out, t.name);
    put<uint32_t>(out, static_cast<uint32_t>(t.tensor.rank()));
    for (int axis = 0; axis < t.tensor.rank(); ++axis) put<uint64_t>(out, static_cast<uint64_t>(t.tensor.shape()[axis]));
  }
  for (const NamedTensor& t : tensors)
    out.append(reinterpret_cast<const char*>(t.tensor.data()), static_cast<size_t>(t.tensor.numel()) * sizeof(float));
  put<uint64_t>(out, fnv1a(out.data(), out.size()));
  return out;
}

void save_checkpoint(const std::string& path, const std::vector<NamedTensor>& tensors,
                     const std::map<std::string, std::string>& metadata) {
  write_file_atomically(path, checkpoint_bytes(tensors, metadata));
}

Checkpoint parse_checkpoint(const std::string& bytes, const std::string& name) {
  if (bytes.size() < sizeof kMagic + 4 + 8 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    fail(name, ": not an empl checkpoint (wrong magic or too short: ", bytes.size(), " bytes)");
  const size_t body = bytes.size() - sizeof(uint64_t);
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, sizeof stored);
  if (stored != fnv1a(bytes.data(), body)) fail(name, ": checksum mismatch: the file is corrupted or truncated");
  Reader in(bytes, body, name);
  in.take(sizeof kMagic, "magic");
  const uint32_t version = in.get<uint32_t>("version");
  if (version != kCheckpointVersion) fail(name, ": format version ", version, ", this build reads version ", kCheckpointVersion);
  Checkpoint checkpoint;
  const uint32_t entries = in.get<uint32_t>("metadata count");
  for (uint32_t i = 0; i < entries; ++i) {
    std::string key = in.get_string("metadata key");
    checkpoint.metadata[key] = in.get_string("metadata value");
  }
  const uint32_t count = in.get<uint32_t>("tensor count");
  in.need(static_cast<size_t>(count) * 8, "tensor table");  // each entry takes at least 8 bytes
  std::vector<Shape> shapes;
  size_t data_bytes = 0;
  for (uint32_t i = 0; i < count; ++i) {
    NamedTensor entry{in.get_string("tensor name"), {}};
    const uint32_t rank = in.get<uint32_t>("tensor rank");
    if (rank > static_cast<uint32_t>(Shape::kMaxRank)) fail(name, ": tensor '", entry.name, "' has rank ", rank);
    int64_t dims[4] = {0, 0, 0, 0};
    size_t elements = 1;
    for (uint32_t axis = 0; axis < rank; ++axis) {
      const uint64_t extent = in.get<uint64_t>("tensor extent");
      if (extent > body || (extent != 0 && elements > body / extent))
        fail(name, ": tensor '", entry.name, "' has an impossible extent ", extent);
      dims[axis] = static_cast<int64_t>(extent);
      elements *= extent;
    }
    data_bytes += elements * sizeof(float);
    if (data_bytes > body) fail(name, ": truncated or corrupted: the tensors need more data than the file holds");
    shapes.push_back(rank == 0 ? Shape{} : rank == 1 ? Shape{dims[0]} : rank == 2 ? Shape{dims[0], dims[1]}
                     : rank == 3 ? Shape{dims[0], dims[1], dims[2]} : Shape{dims[0], dims[1], dims[2], dims[3]});
    checkpoint.tensors.push_back(std::move(entry));
  }
  if (in.remaining() != data_bytes)
    fail(name, ": ", in.remaining() < data_bytes ? "truncated" : "trailing bytes", ": tensor data is ", in.remaining(),
         " bytes, the table needs ", data_bytes);
  for (uint32_t i = 0; i < count; ++i) {
    Tensor tensor = Tensor::empty(shapes[i], "checkpoint tensor");
    const size_t size = static_cast<size_t>(tensor.numel()) * sizeof(float);
    std::memcpy(tensor.data(), in.take(size, "tensor data"), size);
    checkpoint.tensors[i].tensor = tensor;
  }
  return checkpoint;
}

// The file's size (stat, before it is opened) bounds every length parse_checkpoint trusts.
Checkpoint load_checkpoint(const std::string& path) {
  return parse_checkpoint(read_file(path, kMaxInputBytes, "checkpoint"), path);
}

void restore(const Checkpoint& checkpoint, const std::vector<NamedTensor>& destinations, const std::string& name) {
  for (size_t i = 0; i < destinations.size(); ++i) {
    if (i >= checkpoint.tensors.size()) fail(name, ": missing tensor '", destinations[i].name, "'");
    const NamedTensor& source = checkpoint.tensors[i];
    if (source.name != destinations[i].name)
      fail(name, ": tensor ", i, " is '", source.name, "', the model expects '", destinations[i].name,
           "'\nHINT: the checkpoint was written by another architecture or app");
    if (source.tensor.shape() != destinations[i].tensor.shape())
      fail(name, ": tensor '", source.name, "' has shape ", source.tensor.shape(), ", the model expects ",
           destinations[i].tensor.shape());
  }
  if (checkpoint.tensors.size() > destinations.size())
    fail(name, ": unexpected extra tensor '", checkpoint.tensors[destinations.size()].name, "'");
  for (size_t i = 0; i < destinations.size(); ++i) {
    Tensor destination = destinations[i].tensor;
    destination.copy_from(checkpoint.tensors[i].tensor);
  }
}

}  // namespace empl
