// gamma_ray: the paper's astrophysics example (section "An example from astrophysics"), a
// DeepSphere-style graph network on the HEALPix sphere. So far one subcommand, which writes the
// graph of one level so that independent code can rebuild and compare it (graph/laplacian.hpp):
//
//   gamma_ray graph --nside N --out DIR
//     DIR/nodes.npy               int64 [V]    NESTED pixel indices in node order (4·N² .. 5·N² − 1)
//     DIR/laplacian_indptr.npy    int64 [V+1]  L̃ in CSR (scipy.sparse.csr_matrix((data, indices, indptr)))
//     DIR/laplacian_indices.npy   int64 [nnz]
//     DIR/laplacian_data.npy      float32 [nnz]
//
//   gamma_ray simulate --maps M --seed S --out DIR [--nside N] [--roi-deg D] [--psf king|gaussian]
//     DIR/maps.npy      float32 [M, N²]  photon counts of the first M maps (by index) that pass the cuts, node order
//     DIR/labels.npy    float32 [M, 21]  their count-weighted source-count histograms (sum 1)
//     DIR/sources.csv   map,source,counts,theta,phi   (counts after photons outside the disc are dropped)
//
//   gamma_ray train    [--preset small|paper] [--loss empl|sempl|em1|xe|mae|mse] [--save/--resume/--load CKPT]
//   gamma_ray evaluate --load CKPT [--preset P]      metrics on the test maps, calibration, crossings
//   gamma_ray table    [--preset P] [--out DIR]      one network per loss → DIR/table1.md, table1.csv
//   gamma_ray figure   [--preset P] [--load CKPT]    the EMPL network's Fig. 4 → DIR/fig4_gamma_ray.svg
// The dataset of a preset is simulated once into a cache (dataset.hpp) and reused by all of them.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include <cxxopts.hpp>

#include "apps/common/app_options.hpp"
#include "apps/common/run_app.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "apps/gamma_ray/simulate.hpp"
#include "graph/healpix.hpp"
#include "graph/laplacian.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "apps/gamma_ray/commands.hpp"

using namespace empl;

namespace {

constexpr const char* kUsage =
    "gamma_ray: the paper's gamma-ray example on the HEALPix sphere\n"
    "usage: gamma_ray graph --nside N --out DIR   (the graph of one level, as .npy files)\n"
    "       gamma_ray simulate --maps M --seed S --out DIR [--nside N] [--roi-deg D]   (simulated maps)\n"
    "       gamma_ray train|evaluate|table|figure [--preset small|paper] ...   (the networks, Table 1, Fig. 4)\n"
    "       gamma_ray <subcommand> --help";

int run_graph(int argc, char** argv) {
  cxxopts::Options parser("gamma_ray graph", "Writes the nodes and the rescaled Laplacian of the level at --nside");
  parser.add_options()("h,help", "print this help")
      ("nside", "HEALPix nside of the level, a power of two in [1, 256]", cxxopts::value<int64_t>()->default_value("256"))
      ("out", "output folder", cxxopts::value<std::string>()->default_value("out/gamma_ray/graph"))
      ("quiet", "print nothing on success");
  const auto parsed = parse_command_line(parser, argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", parser.help().c_str());
    return 0;
  }
  if (!parsed.unmatched().empty()) fail("graph: unexpected argument '", parsed.unmatched().front(), "'");
  const int64_t nside = parsed["nside"].as<int64_t>();
  if (!healpix::is_valid_nside(nside) || nside > 256)
    fail("--nside: ", nside, " is not a power of two in [1, 256]");
  const std::string out_path = parsed["out"].as<std::string>();
  if (out_path.empty()) fail("--out: the output folder must not be empty");

  OutputDirectory out(out_path);  // checked before the work
  const auto start = std::chrono::steady_clock::now();
  const GraphLevel level = build_graph_level(nside);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const CsrMatrix<float>& l = level.laplacian;
  // Every file's bytes are made before the first is written: what can fail (memory) fails before
  // anything is on disk, and each file is written atomically.
  const std::vector<int64_t> indices(l.indices.begin(), l.indices.end());
  const std::string nodes_bytes = npy_bytes_int64(level.nodes), indptr_bytes = npy_bytes_int64(l.indptr);
  const std::string indices_bytes = npy_bytes_int64(indices);
  const std::string data_bytes = npy_bytes(Tensor::from({l.nonzeros()}, l.values));
  out.write("nodes.npy", nodes_bytes);
  out.write("laplacian_indptr.npy", indptr_bytes);
  out.write("laplacian_indices.npy", indices_bytes);
  out.write("laplacian_data.npy", data_bytes);
  if (!parsed.count("quiet"))
    std::printf("gamma_ray graph: nside %lld, %lld nodes, %lld nonzeros, lambda_max %.6f, built in %.3f s -> %s\n",
                static_cast<long long>(nside), static_cast<long long>(l.rows), static_cast<long long>(l.nonzeros()),
                level.lambda_max, seconds, out.path().c_str());
  return 0;
}

int run_simulate(int argc, char** argv) {
  cxxopts::Options parser("gamma_ray simulate", "Simulates point-source maps (GAMMA_RAY.md) and writes those that pass the cuts");
  parser.add_options()("h,help", "print this help")
      ("maps", "number of maps to write (maps that pass the cuts)", cxxopts::value<int64_t>()->default_value("64"))
      ("seed", "random seed; map i draws from (seed, i) only", cxxopts::value<uint64_t>()->default_value("1"))
      ("out", "output folder", cxxopts::value<std::string>()->default_value("out/gamma_ray/simulate"))
      ("nside", "HEALPix nside of the maps, a power of two in [1, 256]", cxxopts::value<int64_t>()->default_value("64"))
      ("roi-deg", "radius of the region of interest around the Galactic centre, degrees, in (0, 25]", cxxopts::value<double>()->default_value("20"))
      ("psf", "point spread function: king (Fermi) or gaussian (0.1812 deg)", cxxopts::value<std::string>()->default_value("king"))
      ("threads", "threads (0: all cores)", cxxopts::value<int>()->default_value("0"))
      ("quiet", "print nothing on success");
  const auto parsed = parse_command_line(parser, argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", parser.help().c_str());
    return 0;
  }
  if (!parsed.unmatched().empty()) fail("simulate: unexpected argument '", parsed.unmatched().front(), "'");
  const int64_t maps = parsed["maps"].as<int64_t>();
  if (maps < 1 || maps > 10000000) fail("--maps: ", maps, " is outside [1, 10000000]");
  gamma_ray::SimulationConfig config;
  config.nside = parsed["nside"].as<int64_t>();
  if (!healpix::is_valid_nside(config.nside) || config.nside > 256)
    fail("--nside: ", config.nside, " is not a power of two in [1, 256]");
  config.roi_deg = parsed["roi-deg"].as<double>();
  if (!(config.roi_deg > 0.0 && config.roi_deg <= 25.0)) fail("--roi-deg: ", config.roi_deg, " is outside (0, 25]");
  const std::string psf = parsed["psf"].as<std::string>();
  if (psf == "gaussian") config.psf.kind = gamma_ray::PsfKind::gaussian;
  else if (psf != "king") fail("--psf: '", psf, "' is not king or gaussian");
  const int threads = parsed["threads"].as<int>();
  if (threads < 0 || threads > 1024) fail("--threads: ", threads, " is outside [0, 1024]");
  const std::string out_path = parsed["out"].as<std::string>();
  if (out_path.empty()) fail("--out: the output folder must not be empty");
  const uint64_t seed = parsed["seed"].as<uint64_t>();
  set_num_threads(threads);

  OutputDirectory out(out_path);  // checked before the work
  const auto start = std::chrono::steady_clock::now();
  const gamma_ray::SimulationSetup setup(config);
  // Rounds of maps in index order; the first `maps` that pass are kept, whatever the thread count.
  std::vector<gamma_ray::SimulatedMap> kept;
  uint64_t next = 0;
  while (static_cast<int64_t>(kept.size()) < maps) {
    const int64_t round = std::max<int64_t>(64, 2 * (maps - static_cast<int64_t>(kept.size())));
    for (gamma_ray::SimulatedMap& map : gamma_ray::simulate_maps(setup, seed, next, round))
      if (map.passes_cuts && static_cast<int64_t>(kept.size()) < maps) kept.push_back(std::move(map));
    next += static_cast<uint64_t>(round);
  }
  const int64_t nodes = config.nside * config.nside;
  std::vector<float> map_values(static_cast<size_t>(maps * nodes)), label_values(static_cast<size_t>(maps * gamma_ray::kLabelBins));
  std::string csv = "map,source,counts,theta,phi\n";
  char line[160];
  for (int64_t m = 0; m < maps; ++m) {
    const gamma_ray::SimulatedMap& map = kept[static_cast<size_t>(m)];
    for (int64_t v = 0; v < nodes; ++v) map_values[static_cast<size_t>(m * nodes + v)] = static_cast<float>(map.counts[static_cast<size_t>(v)]);
    for (int b = 0; b < gamma_ray::kLabelBins; ++b)
      label_values[static_cast<size_t>(m * gamma_ray::kLabelBins + b)] = static_cast<float>(map.label[static_cast<size_t>(b)]);
    for (size_t s = 0; s < map.sources.size(); ++s) {
      const gamma_ray::Source& src = map.sources[s];
      std::snprintf(line, sizeof line, "%lld,%zu,%lld,%.17g,%.17g\n", static_cast<long long>(m), s,
                    static_cast<long long>(src.counts), src.theta, src.phi);
      csv += line;
    }
  }
  // Every file's bytes are made before the first is written (see run_graph).
  const std::string maps_bytes = npy_bytes(Tensor::from({maps, nodes}, map_values));
  const std::string labels_bytes = npy_bytes(Tensor::from({maps, int64_t{gamma_ray::kLabelBins}}, label_values));
  out.write("maps.npy", maps_bytes);
  out.write("labels.npy", labels_bytes);
  out.write("sources.csv", csv);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!parsed.count("quiet"))
    std::printf("gamma_ray simulate: %lld maps passed the cuts (%llu simulated), nside %lld, roi %.3g deg, %.3f s -> %s\n",
                static_cast<long long>(maps), static_cast<unsigned long long>(next), static_cast<long long>(config.nside),
                config.roi_deg, seconds, out.path().c_str());
  return 0;
}

int run(int argc, char** argv) {
  if (argc < 2) fail("missing subcommand (known: graph, simulate, train, evaluate, table, figure; see --help)");
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::printf("%s\n", kUsage);
    return 0;
  }
  const std::string command = argv[1];
  if (command == "graph") return run_graph(argc - 1, argv + 1);
  if (command == "simulate") return run_simulate(argc - 1, argv + 1);
  if (command == "train") return gamma_ray::run_train(argc - 1, argv + 1);
  if (command == "evaluate") return gamma_ray::run_evaluate(argc - 1, argv + 1);
  if (command == "table") return gamma_ray::run_table(argc - 1, argv + 1);
  if (command == "figure") return gamma_ray::run_figure(argc - 1, argv + 1);
  fail("unknown subcommand '", command, "' (known: graph, simulate, train, evaluate, table, figure; see --help)");
}

}  // namespace

int main(int argc, char** argv) { return run_app("gamma_ray", argc, argv, run); }
