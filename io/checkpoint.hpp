// Checkpoints: named tensors (parameters, buffers such as batch-norm statistics, optimizer
// state) and text metadata (step, seed, loss, architecture), in one binary file:
//
//   "EMPLCKPT" | u32 version | u32 #metadata, each (u32 length, key, u32 length, value)
//   | u32 #tensors, each (u32 length, name, u32 rank, rank × u64 extents)
//   | the float32 data of every tensor in order | u64 FNV-1a checksum of all bytes before it
//
// (little-endian). Written atomically (io/atomic_file.hpp). Loading refuses what is not a regular
// file or is above kMaxInputBytes (1 GiB) before reading it, then checks the magic, the version,
// every length against the bytes that remain, and the checksum, before any tensor is allocated or
// trusted; restoring checks that names, order and shapes match the model exactly.
// Read after io/atomic_file.hpp and layers/module.hpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace empl {

inline constexpr uint32_t kCheckpointVersion = 1;

struct Checkpoint {
  std::map<std::string, std::string> metadata;
  std::vector<NamedTensor> tensors;
};

std::string checkpoint_bytes(const std::vector<NamedTensor>& tensors, const std::map<std::string, std::string>& metadata);
void save_checkpoint(const std::string& path, const std::vector<NamedTensor>& tensors,
                     const std::map<std::string, std::string>& metadata);

Checkpoint parse_checkpoint(const std::string& bytes, const std::string& name = "checkpoint");
Checkpoint load_checkpoint(const std::string& path);

// Copies the checkpoint's tensors into `destinations` (same names, same order, same shapes);
// throws naming the first difference: "checkpoint c.ckpt: tensor '0.weight' has shape [2,128],
// the model expects [4,256]".
void restore(const Checkpoint& checkpoint, const std::vector<NamedTensor>& destinations,
             const std::string& name = "checkpoint");

}  // namespace empl
