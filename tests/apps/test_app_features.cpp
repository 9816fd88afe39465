// What the apps offer and no other test ran: --help of every app, the progress line, a successful
// toy_urn --compare, and the refusal of a checkpoint of another format version.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "io/checkpoint.hpp"
#include "core/error.hpp"
#include "run_binary.hpp"

using namespace empl;
using namespace empl::testing;

TEST_CASE("--help of every app prints its flags on stdout, exits 0, and trains and writes nothing") {
  struct App {
    std::string name, arguments;
    std::vector<std::string> flags;  // flags of this app only, so another app's help would fail
  };
  const App apps[] = {
      {"toy_urn", "--help", {"--steps", "--loss", "--out", "--load", "--save", "--resume", "--compare", "--s1"}},
      {"bimodal", "--help", {"--steps", "--loss", "--out", "--compare"}},
      {"bundesliga", "--help", {"--steps", "--data", "--season", "--week", "--replays", "--bootstrap"}},
      {"bundesliga", "table --help", {"--season", "--week"}},
  };
  for (const App& app : apps) {
    TemporaryFolder folder;
    const RunResult run = run_app_binary(app.name, app.arguments + " --out " + folder.file("out") + " --save " + folder.file("s.ckpt"));
    INFO(app.name, " ", app.arguments, "\nstdout: ", run.out, "\nstderr: ", run.err);
    CHECK(run.status == 0);
    CHECK(run.err.empty());
    CHECK(run.out.rfind("Usage:", std::string::npos) != std::string::npos);
    for (const std::string& flag : app.flags) CHECK(run.out.find(flag) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(folder.file("out")));
    CHECK_FALSE(std::filesystem::exists(folder.file("s.ckpt")));
  }
}

TEST_CASE("the progress line: without --quiet a run ends with 'step N/N  loss L ... done', with it stderr stays empty") {
  TemporaryFolder folder;
  // stderr is a file here, not a terminal: one line every 5 s and a final line, so a run of
  // well under 5 s prints the final line alone.
  const RunResult run = run_app_binary("toy_urn", "--steps 30 --batch 64 --threads 1 --out " + folder.file("a"));
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(count_lines(run.err) == 1);
  long long step = 0, total = 0;
  double loss = NAN;
  REQUIRE(std::sscanf(run.err.c_str(), "step %lld/%lld  loss %lf", &step, &total, &loss) == 3);
  CHECK(step == 30);
  CHECK(total == 30);
  CHECK(std::isfinite(loss));
  CHECK(loss > 0.0);
  CHECK(run.err.find("steps/s  done in ") != std::string::npos);
  const RunResult quiet = run_app_binary("toy_urn", "--steps 30 --batch 64 --threads 1 --quiet --out " + folder.file("b"));
  CHECK(quiet.status == 0);
  CHECK(quiet.err.empty());
}

TEST_CASE("toy_urn --compare draws the models of other losses beside its own") {
  TemporaryFolder folder;
  const std::string tiny = " --steps 20 --batch 64 --threads 1 --quiet";
  for (const std::string loss : {"em1", "xe"}) {
    const RunResult made = run_app_binary("toy_urn", "--loss " + loss + tiny + " --out " + folder.file("made_" + loss) +
                                                         " --save " + folder.file(loss + ".ckpt"));
    INFO(made.err);
    REQUIRE(made.status == 0);
  }
  const RunResult plain = run_app_binary("toy_urn", tiny + " --out " + folder.file("plain"));
  const RunResult run = run_app_binary("toy_urn", tiny + " --out " + folder.file("out") + " --compare " + folder.file("em1.ckpt") +
                                                      "," + folder.file("xe.ckpt"));
  INFO(run.err);
  REQUIRE(plain.status == 0);
  REQUIRE(run.status == 0);
  const std::string figure = slurp(folder.file("out/fig2_toy_urn.svg"));
  // The legend names each compared model by the loss in its checkpoint, in capitals, and the
  // panel it is drawn in (x = 1).
  CHECK(figure.find(">EM1 at x = 1<") != std::string::npos);
  CHECK(figure.find(">XE at x = 1<") != std::string::npos);
  CHECK(slurp(folder.file("plain/fig2_toy_urn.svg")).find(">EM1 at x = 1<") == std::string::npos);
  // The comparison changes the figure only: this model's table is the same.
  CHECK(slurp(folder.file("out/quantiles.csv")) == slurp(folder.file("plain/quantiles.csv")));
}

TEST_CASE("a checkpoint of another format version is refused, naming both versions") {
  std::string bytes = checkpoint_bytes({{"w", Tensor::zeros({2, 2})}}, {{"step", "1"}});
  REQUIRE(parse_checkpoint(bytes).tensors.size() == 1);
  // The version is the u32 after the 8-byte magic; the checksum (FNV-1a, the last 8 bytes) is
  // recomputed so that the version is the only thing wrong.
  bytes[8] = static_cast<char>(kCheckpointVersion + 1);
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i + 8 < bytes.size(); ++i) hash = (hash ^ static_cast<unsigned char>(bytes[i])) * 0x100000001b3ULL;
  std::memcpy(bytes.data() + bytes.size() - 8, &hash, 8);
  const std::string expected = "c.ckpt: format version " + std::to_string(kCheckpointVersion + 1) +
                               ", this build reads version " + std::to_string(kCheckpointVersion);
  CHECK_THROWS_WITH_AS(parse_checkpoint(bytes, "c.ckpt"), doctest::Contains(expected.c_str()), Error);
}

TEST_CASE("a run killed before it wrote anything leaves no --out folder (not even on SIGKILL)") {
  // The folder is proven creatable at start and made by the first write only; a run stopped while
  // loading or training (here by SIGKILL, which no handler sees) leaves nothing to clean up.
  TemporaryFolder folder;
  const std::string script = std::string(EMPL_BINARY_DIR) + "/toy_urn --steps 1000000 --batch 16 --threads 1 --quiet --out " +
                             folder.file("out") + " > /dev/null 2>&1 & pid=$!; sleep 0.5; kill -0 $pid && echo running > " +
                             folder.file("state") + "; kill -KILL $pid; wait $pid";
  std::system(("sh -c '" + script + "'").c_str());
  CHECK(slurp(folder.file("state")) == "running\n");  // killed while training, not after an early exit
  CHECK_FALSE(std::filesystem::exists(folder.file("out")));
}
