// The dataset and its cache (read dataset.hpp first). The cache is trusted only when every header
// field matches the settings asked for and the payload's checksum matches: anything else is
// simulated again, never used.
#include "apps/gamma_ray/dataset.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "apps/gamma_ray/simulate.hpp"
#include "core/error.hpp"
#include "io/atomic_file.hpp"

namespace empl::gamma_ray {
namespace {

constexpr char kMagic[8] = {'E', 'M', 'P', 'L', 'G', 'R', 'A', 'Y'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 8 + 4 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 8 + 8;

uint64_t fnv1a(const char* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  return h;
}

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
T get(const std::string& in, size_t& at) {
  T value;
  std::memcpy(&value, in.data() + at, sizeof value);
  at += sizeof value;
  return value;
}

}  // namespace

Dataset simulate_dataset(const DatasetSpec& spec, bool progress) {
  if (spec.simulated < 1) fail("gamma_ray dataset: ", spec.simulated, " maps to simulate");
  SimulationConfig config;
  config.nside = spec.nside;
  config.roi_deg = spec.roi_deg;
  config.psf.kind = spec.psf;
  config.stop_at_failed_cut = true;
  const SimulationSetup setup(config);
  Dataset d;
  d.spec = spec;
  d.nodes = spec.nside * spec.nside;
  d.bins = kLabelBins;
  const auto start = std::chrono::steady_clock::now();
  constexpr int64_t kRound = 2048;  // maps per parallel round (bounds the memory of unkept maps)
  for (int64_t first = 0; first < spec.simulated; first += kRound) {
    const int64_t count = std::min(kRound, spec.simulated - first);
    for (const SimulatedMap& map : simulate_maps(setup, spec.seed, static_cast<uint64_t>(first), count)) {
      if (!map.passes_cuts) continue;
      for (const int64_t c : map.counts) {
        if (c > 65535) fail("gamma_ray dataset: a pixel holds ", c, " counts, above the cache's 16 bits");
        d.counts.push_back(static_cast<uint16_t>(c));
      }
      for (const double v : map.label) d.labels.push_back(static_cast<float>(v));
      d.totals.push_back(static_cast<double>(map.total_counts));
      ++d.maps;
    }
    if (progress) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "\rgamma_ray: simulated %lld/%lld maps, %lld kept, %.0f s", static_cast<long long>(first + count),
                   static_cast<long long>(spec.simulated), static_cast<long long>(d.maps), s);
    }
  }
  if (progress) std::fprintf(stderr, "\n");
  return d;
}

std::string dataset_bytes(const Dataset& d) {
  std::string payload;
  payload.reserve(d.counts.size() * 2 + d.labels.size() * 4);
  payload.append(reinterpret_cast<const char*>(d.counts.data()), d.counts.size() * sizeof(uint16_t));
  payload.append(reinterpret_cast<const char*>(d.labels.data()), d.labels.size() * sizeof(float));
  std::string out(kMagic, sizeof kMagic);
  put<uint32_t>(out, kVersion);
  put<int64_t>(out, d.spec.nside);
  put<double>(out, d.spec.roi_deg);
  put<uint32_t>(out, d.spec.psf == PsfKind::king ? 0u : 1u);
  put<uint64_t>(out, d.spec.seed);
  put<int64_t>(out, d.spec.simulated);
  put<int64_t>(out, d.maps);
  put<int64_t>(out, d.nodes);
  put<int64_t>(out, d.bins);
  put<uint64_t>(out, fnv1a(payload.data(), payload.size()));
  return out + payload;
}

Dataset parse_dataset(const std::string& bytes, const DatasetSpec& expected, const std::string& name) {
  if (bytes.size() < kHeaderBytes) fail(name, ": ", bytes.size(), " bytes, shorter than the ", kHeaderBytes, "-byte header (truncated)");
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) fail(name, ": not a gamma_ray dataset (no EMPLGRAY magic)");
  size_t at = sizeof kMagic;
  const auto version = get<uint32_t>(bytes, at);
  if (version != kVersion) fail(name, ": version ", version, ", this program reads version ", kVersion);
  Dataset d;
  d.spec.nside = get<int64_t>(bytes, at);
  d.spec.roi_deg = get<double>(bytes, at);
  const auto psf = get<uint32_t>(bytes, at);
  d.spec.psf = psf == 0 ? PsfKind::king : PsfKind::gaussian;
  d.spec.seed = get<uint64_t>(bytes, at);
  d.spec.simulated = get<int64_t>(bytes, at);
  d.maps = get<int64_t>(bytes, at);
  d.nodes = get<int64_t>(bytes, at);
  d.bins = get<int64_t>(bytes, at);
  const auto checksum = get<uint64_t>(bytes, at);
  if (d.spec.nside != expected.nside) fail(name, ": made for nside ", d.spec.nside, ", this run has ", expected.nside);
  if (d.spec.roi_deg != expected.roi_deg) fail(name, ": made for roi ", d.spec.roi_deg, " deg, this run has ", expected.roi_deg);
  if (psf > 1 || d.spec.psf != expected.psf) fail(name, ": made for another PSF (code ", psf, ")");
  if (d.spec.seed != expected.seed) fail(name, ": made with seed ", d.spec.seed, ", this run has ", expected.seed);
  if (d.spec.simulated != expected.simulated)
    fail(name, ": made from ", d.spec.simulated, " simulated maps, this run asks for ", expected.simulated);
  if (d.nodes != expected.nside * expected.nside || d.bins != kLabelBins || d.maps < 0 || d.maps > d.spec.simulated)
    fail(name, ": inconsistent shapes: ", d.maps, " maps of ", d.nodes, " nodes and ", d.bins, " bins");
  const uint64_t payload = static_cast<uint64_t>(d.maps) * static_cast<uint64_t>(d.nodes * 2 + d.bins * 4);
  if (bytes.size() - kHeaderBytes != payload)
    fail(name, ": payload is ", bytes.size() - kHeaderBytes, " bytes, the header promises ", payload, " (truncated or padded)");
  if (fnv1a(bytes.data() + kHeaderBytes, payload) != checksum) fail(name, ": checksum mismatch (corrupted)");
  d.counts.resize(static_cast<size_t>(d.maps * d.nodes));
  d.labels.resize(static_cast<size_t>(d.maps * d.bins));
  std::memcpy(d.counts.data(), bytes.data() + at, d.counts.size() * sizeof(uint16_t));
  std::memcpy(d.labels.data(), bytes.data() + at + d.counts.size() * sizeof(uint16_t), d.labels.size() * sizeof(float));
  d.totals.assign(static_cast<size_t>(d.maps), 0.0);
  for (int64_t m = 0; m < d.maps; ++m)
    for (int64_t v = 0; v < d.nodes; ++v) d.totals[static_cast<size_t>(m)] += d.counts[static_cast<size_t>(m * d.nodes + v)];
  return d;
}

Dataset load_or_simulate(const std::string& path, const DatasetSpec& spec, bool quiet, bool* simulated_now) {
  if (std::filesystem::exists(path)) {
    try {
      Dataset d = parse_dataset(read_file(path, uint64_t{1} << 36, "dataset cache"), spec, path);
      if (simulated_now) *simulated_now = false;
      return d;
    } catch (const Error& refused) {
      std::fprintf(stderr, "gamma_ray: dataset cache refused: %s; simulating it again\n", refused.what());
    }
  }
  Dataset d = simulate_dataset(spec, !quiet);
  write_file_atomically(path, dataset_bytes(d));
  if (simulated_now) *simulated_now = true;
  return d;
}

}  // namespace empl::gamma_ray
