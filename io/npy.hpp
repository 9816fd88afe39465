// NumPy .npy files of float32 arrays (format 1.0; 1-D int64 ones too, written only), readable by
// numpy.load, so results can be checked from outside. Header: magic "\x93NUMPY", version, header
// length, a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (...), } padded
// with spaces to a multiple of 64 bytes and ended by a newline; then the raw little-endian data in
// C order.
// Read after io/atomic_file.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/tensor.hpp"

namespace empl {

std::string npy_bytes(const Tensor& tensor);  // the whole file's contents
// A 1-D int64 array ('<i8'), for indices that float32 cannot hold exactly (HEALPix pixel numbers,
// CSR index arrays). Written only: empl reads nothing but float32.
std::string npy_bytes_int64(std::span<const int64_t> values);
void save_npy(const std::string& path, const Tensor& tensor);  // written atomically

// Reads '<f4' C-order arrays of versions 1.0 to 3.0 and up to 4 dims; anything else is refused
// with a message naming the file and the problem. load_npy reads the header first (at most 64 KiB)
// and the data only once the shape it promises matches the file's size.
Tensor parse_npy(const std::string& bytes, const std::string& name = "npy data");
Tensor load_npy(const std::string& path);

}  // namespace empl
