// `gamma_ray graph` end to end: the four .npy files hold the level's nodes and L̃ exactly, and bad
// input ends with exit status 2, one line on stderr naming the value, and no output folder.
// (tests/graph/check_gamma_ray_graph.py rebuilds L̃ from nodes.npy with healpy and scipy.)
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../apps/run_binary.hpp"
#include "graph/laplacian.hpp"
#include "io/npy.hpp"

using namespace empl;
using namespace empl::testing;

namespace {

// The int64 payload of a 1-D '<i8' .npy file written by npy_bytes_int64 (header length at 8..9).
std::vector<int64_t> int64_payload(const std::string& bytes) {
  REQUIRE(bytes.size() >= 10);
  const size_t header = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  REQUIRE(bytes.find("'descr': '<i8'") != std::string::npos);
  std::vector<int64_t> values((bytes.size() - 10 - header) / 8);
  std::memcpy(values.data(), bytes.data() + 10 + header, values.size() * 8);
  return values;
}

}  // namespace

TEST_CASE("npy_bytes_int64: a 1-D '<i8' array, header padded to 64 bytes") {
  const std::vector<int64_t> v = {4, -1, int64_t{1} << 40};
  const std::string bytes = npy_bytes_int64(v);
  CHECK((bytes.size() - 24) % 64 == 0);
  CHECK(bytes.find("'shape': (3,)") != std::string::npos);
  CHECK(int64_payload(bytes) == v);
}

TEST_CASE("gamma_ray graph writes the nodes and L~ of the level") {
  TemporaryFolder folder;
  const std::string out = folder.file("graph");
  const RunResult run = run_app_binary("gamma_ray", "graph --nside 8 --quiet --out " + out);
  REQUIRE(run.status == 0);
  CHECK(run.err.empty());
  const GraphLevel level = build_graph_level(8);
  CHECK(int64_payload(slurp(out + "/nodes.npy")) == level.nodes);
  CHECK(int64_payload(slurp(out + "/laplacian_indptr.npy")) == level.laplacian.indptr);
  const std::vector<int64_t> indices(level.laplacian.indices.begin(), level.laplacian.indices.end());
  CHECK(int64_payload(slurp(out + "/laplacian_indices.npy")) == indices);
  const Tensor data = load_npy(out + "/laplacian_data.npy");
  REQUIRE(data.numel() == level.laplacian.nonzeros());
  int differ = 0;
  for (int64_t i = 0; i < data.numel(); ++i) differ += data[i] != level.laplacian.values[i];
  CHECK(differ == 0);
}

TEST_CASE("gamma_ray: bad input is one line on stderr, exit 2, nothing written") {
  TemporaryFolder folder;
  const std::string out = folder.file("never");
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"graph --nside 3 --out " + out, "3"},       {"graph --nside 512 --out " + out, "512"},
      {"graph --nside 0 --out " + out, "0"},       {"graph --nside abc --out " + out, "abc"},
      {"graph --bogus 1 --out " + out, "bogus"},   {"graph --nside 4 extra --out " + out, "extra"},
      {"lattice --out " + out, "lattice"},         {"", "subcommand"}};
  for (const auto& [arguments, named] : rows) {
    INFO("gamma_ray ", arguments);
    const RunResult run = run_app_binary("gamma_ray", arguments);
    CHECK(run.status == 2);
    CHECK(run.out.empty());
    CHECK(count_lines(run.err) == 1);
    CHECK(run.err.rfind("gamma_ray: ", 0) == 0);
    CHECK(run.err.find(named) != std::string::npos);
    CHECK(!std::filesystem::exists(out));
  }
}
