// gamma_ray: the paper's astrophysics example (section "An example from astrophysics"), a
// DeepSphere-style graph network on the HEALPix sphere. So far one subcommand, which writes the
// graph of one level so that independent code can rebuild and compare it (graph/laplacian.hpp):
//
//   gamma_ray graph --nside N --out DIR
//     DIR/nodes.npy               int64 [V]    NESTED pixel indices in node order (4·N² .. 5·N² − 1)
//     DIR/laplacian_indptr.npy    int64 [V+1]  L̃ in CSR (scipy.sparse.csr_matrix((data, indices, indptr)))
//     DIR/laplacian_indices.npy   int64 [nnz]
//     DIR/laplacian_data.npy      float32 [nnz]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include <cxxopts.hpp>

#include "apps/common/app_options.hpp"
#include "apps/common/run_app.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "graph/healpix.hpp"
#include "graph/laplacian.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"

using namespace empl;

namespace {

constexpr const char* kUsage =
    "gamma_ray: the paper's gamma-ray example on the HEALPix sphere\n"
    "usage: gamma_ray graph --nside N --out DIR   (the graph of one level, as .npy files)\n"
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

int run(int argc, char** argv) {
  if (argc < 2) fail("missing subcommand (known: graph; see --help)");
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::printf("%s\n", kUsage);
    return 0;
  }
  const std::string command = argv[1];
  if (command == "graph") return run_graph(argc - 1, argv + 1);
  fail("unknown subcommand '", command, "' (known: graph; see --help)");
}

}  // namespace

int main(int argc, char** argv) { return run_app("gamma_ray", argc, argv, run); }
