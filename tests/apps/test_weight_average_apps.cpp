// The apps evaluate with the weight average (optim/weight_average.hpp): --load of a saved run
// must evaluate the same averaged weights as the run itself did, which differ from the last
// step's weights; the averaging flags refuse values outside their range. gamma_ray (off by
// default, as in the paper) also measures its batch norms again with the averaged weights.
#include <doctest/doctest.h>

#include "run_binary.hpp"

using namespace empl::testing;

TEST_CASE("toy_urn and bimodal: --load evaluates the saved run's averaged weights") {
  for (const std::string app : {"toy_urn", "bimodal"}) {
    CAPTURE(app);
    TemporaryFolder folder;
    const std::string common = " --steps 30 --batch 128 --threads 1 --quiet --average-steps 20";
    const RunResult run = run_app_binary(app, common + " --out " + folder.file("run") + " --save " + folder.file("m.ckpt"));
    INFO(run.err);
    REQUIRE(run.status == 0);
    const RunResult load = run_app_binary(app, "--load " + folder.file("m.ckpt") + " --out " + folder.file("load"));
    INFO(load.err);
    REQUIRE(load.status == 0);
    CHECK(slurp(folder.file("run/quantiles.csv")) == slurp(folder.file("load/quantiles.csv")));
    // The same run without the average evaluates the last step's weights: another table.
    const RunResult last = run_app_binary(app, common + " --average-decay 0 --out " + folder.file("last"));
    INFO(last.err);
    REQUIRE(last.status == 0);
    CHECK(slurp(folder.file("run/quantiles.csv")) != slurp(folder.file("last/quantiles.csv")));
  }
}

TEST_CASE("gamma_ray train --average-decay: evaluate --load scores the averaged network as train did") {
  TemporaryFolder folder;
  // Batch 8: the batch-norm measure is 100 forward passes of the batch (the slowest part under TSan at 64).
  const std::string common = " --loss xe --batch 8 --simulated 1000 --threads 1 --quiet --data " + folder.file("data.bin");
  const std::string averaged = " --steps 12 --learning-rate 2e-3 --average-decay 0.8 --average-steps 6";
  // The metrics line of a train or evaluate run: the line after the header "MAE e-3 ...".
  const auto metrics_line = [](const std::string& out) {
    const size_t header = out.find("MAE e-3");
    const size_t start = out.find('\n', header) + 1;
    return header == std::string::npos ? std::string() : out.substr(start, out.find('\n', start) - start);
  };
  const RunResult run = run_app_binary("gamma_ray", "train" + common + averaged + " --save " + folder.file("m.ckpt") +
                                                        " --out " + folder.file("run"));
  INFO(run.err);
  REQUIRE(run.status == 0);
  REQUIRE(metrics_line(run.out).rfind("xe ", 0) == 0);
  const RunResult load = run_app_binary("gamma_ray", "evaluate" + common + " --load " + folder.file("m.ckpt") + " --out " +
                                                         folder.file("load"));
  INFO(load.err);
  REQUIRE(load.status == 0);
  CHECK(metrics_line(load.out) == metrics_line(run.out));
  // Without the average, the last step's weights: other metrics.
  const RunResult last = run_app_binary("gamma_ray", "train" + common + " --steps 12 --learning-rate 2e-3 --out " + folder.file("last"));
  INFO(last.err);
  REQUIRE(last.status == 0);
  CHECK(metrics_line(last.out) != metrics_line(run.out));
}

TEST_CASE("toy_urn and bimodal: an average decay of 1 and 0 average steps are refused") {
  for (const std::string app : {"toy_urn", "bimodal"}) {
    CAPTURE(app);
    TemporaryFolder folder;
    const RunResult decay = run_app_binary(app, "--steps 2 --average-decay 1 --out " + folder.file("a"));
    CHECK(decay.status != 0);
    CHECK(decay.err.find("--average-decay must be in [0, 1), got 1") != std::string::npos);
    const RunResult steps = run_app_binary(app, "--steps 2 --average-steps 0 --out " + folder.file("b"));
    CHECK(steps.status != 0);
    CHECK(steps.err.find("--average-steps must be positive, got 0") != std::string::npos);
  }
}
