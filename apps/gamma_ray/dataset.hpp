// The gamma-ray dataset: the maps of `simulated` draws (index 0 … simulated − 1 of seed s,
// simulate.hpp) that pass the cuts, kept in memory as counts and labels, and cached in one binary
// file so that it is simulated once and reused by every network of a table.
//
// Cache file (little-endian, version 1):
//   "EMPLGRAY" | u32 version | i64 nside | f64 roi_deg | u32 psf (0 king, 1 gaussian) | u64 seed
//   | i64 simulated | i64 maps | i64 nodes | i64 bins | u64 FNV-1a of the payload
//   | payload: u16 counts [maps, nodes] (node order), f32 labels [maps, bins]
// A file that is truncated, foreign, of another version, made for other settings or whose checksum
// fails is refused with a message naming what differs, and the dataset is simulated again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/gamma_ray/psf.hpp"

namespace empl::gamma_ray {

struct DatasetSpec {
  int64_t nside = 16;
  double roi_deg = 20.0;
  PsfKind psf = PsfKind::king;
  uint64_t seed = 1;
  int64_t simulated = 1000;  // maps drawn before the cuts
};

struct Dataset {
  DatasetSpec spec;
  int64_t maps = 0, nodes = 0, bins = 0;
  std::vector<uint16_t> counts;  // [maps, nodes]
  std::vector<float> labels;     // [maps, bins], rows sum to 1
  std::vector<double> totals;    // [maps] total counts (from `counts`)

  // The test split: the last 1/15 of the maps (paper); training uses the rest.
  int64_t test_count() const { return maps / 15; }
  int64_t train_count() const { return maps - test_count(); }
  int64_t test_begin() const { return train_count(); }
};

// Simulates (parallel over maps, the same for any thread count). progress: a line on stderr.
Dataset simulate_dataset(const DatasetSpec& spec, bool progress);

std::string dataset_bytes(const Dataset& dataset);
// Parses a cache; throws empl::Error saying why it is refused (`name` is its path, for messages).
Dataset parse_dataset(const std::string& bytes, const DatasetSpec& expected, const std::string& name);

// The cache at `path` if it is valid for `spec`; otherwise (absent, or refused with a message on
// stderr) simulates and writes it atomically. `simulated_now` tells which happened.
Dataset load_or_simulate(const std::string& path, const DatasetSpec& spec, bool quiet, bool* simulated_now = nullptr);

}  // namespace empl::gamma_ray
