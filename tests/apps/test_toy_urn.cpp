// toy_urn: the analytic quantiles and S1 expectations by hand, and end-to-end runs of the binary.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "apps/toy_urn/evaluation.hpp"
#include "apps/toy_urn/toy_model.hpp"
#include "apps/toy_urn/urn_data.hpp"
#include "apps/toy_urn/urn_math.hpp"
#include "core/parallel.hpp"
#include "run_binary.hpp"

using namespace empl;
using namespace empl::toy_urn;
using namespace empl::testing;

TEST_CASE("toy_urn: binomial CDF and quantiles by hand") {
  // Bin(2, 0.5): P(0) = 1/4, P(≤1) = 3/4. Quantiles: τ ≤ 0.25 -> 0, τ ≤ 0.75 -> 1, else 2.
  CHECK(binomial_cdf(0, 2, 0.5) == doctest::Approx(0.25));
  CHECK(binomial_cdf(1, 2, 0.5) == doctest::Approx(0.75));
  CHECK(binomial_quantile(0.25, 2, 0.5) == 0);
  CHECK(binomial_quantile(0.26, 2, 0.5) == 1);
  CHECK(binomial_quantile(0.9, 2, 0.5) == 2);
  // x = 1, bin j: M_j = 1 with probability j/5, so the τ-quantile is 1 once τ > 1 − j/5.
  CHECK(cumulative_quantile(0.3, 1, 3, 5) == 0.0);   // 1 − 3/5 = 0.4 > 0.3
  CHECK(cumulative_quantile(0.5, 1, 3, 5) == 1.0);
  // x = 10, bin 1: M_1^c ~ Bin(10, 0.2), median 2 (P(≤1) = 0.376, P(≤2) = 0.678): 0.2.
  CHECK(cumulative_quantile(0.5, 10, 1, 5) == doctest::Approx(0.2));
  CHECK(binomial_cdf(2, 10, 0.2) == doctest::Approx(0.6777995));
  CHECK(draws_for(0.0) == 1);
  CHECK(draws_for(1.0) == 1000);
  CHECK(draws_for(input_for_draws(100)) == 100);
}

TEST_CASE("toy_urn: supplementary S1 expectations, analytic and Monte Carlo") {
  // N = 5: median strategy (25 − 1)/100 = 0.24, mean strategy 24/75 = 0.32 (6 of 25 squares
  // filled in the paper's sketch -> 6/25 = 0.24).
  CHECK(expected_emd_median_strategy(5) == doctest::Approx(0.24));
  CHECK(expected_emd_mean_strategy(5) == doctest::Approx(0.32));
  CHECK(expected_emd_mean_strategy(7) / expected_emd_median_strategy(7) == doctest::Approx(4.0 / 3.0));
  const StrategyEstimate estimate = monte_carlo_emd(5, 200000, 1);
  // Standard error of the mean of 200,000 single-draw EMDs (sd < 0.3): < 7e-4; 5 of them.
  CHECK(std::abs(estimate.median_strategy - 0.24) < 0.0035);
  CHECK(std::abs(estimate.mean_strategy - 0.32) < 0.0035);
}

TEST_CASE("toy_urn: a batch is the same for 1 and 2 threads, and its labels are histograms") {
  const int before = num_threads();
  Tensor in1 = Tensor::empty({512, kFeatures}), lab1 = Tensor::empty({512, kBins}), tau1 = Tensor::empty({512, 1});
  Tensor in2 = Tensor::empty({512, kFeatures}), lab2 = Tensor::empty({512, kBins}), tau2 = Tensor::empty({512, 1});
  set_num_threads(1);
  make_batch(7, 3, in1, lab1, tau1);
  set_num_threads(2);
  make_batch(7, 3, in2, lab2, tau2);
  set_num_threads(before);
  CHECK(std::equal(lab1.values().begin(), lab1.values().end(), lab2.values().begin()));
  CHECK(std::equal(in1.values().begin(), in1.values().end(), in2.values().begin()));
  for (int64_t r = 0; r < 512; ++r) {
    float total = 0;
    for (int j = 0; j < kBins; ++j) total += lab1[r * kBins + j];
    CHECK(total == doctest::Approx(1.0f));
  }
}

// The mean of |predicted − analytic| over the rows of quantiles.csv (x,tau,bin,predicted,analytic),
// all of them or those of one x.
double mean_quantile_error(const std::string& csv, double only_x = -1.0) {
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);  // the header
  double total = 0.0;
  int rows = 0;
  while (std::getline(lines, line)) {
    double x, tau, predicted, analytic;
    int bin;
    REQUIRE(std::sscanf(line.c_str(), "%lf,%lf,%d,%lf,%lf", &x, &tau, &bin, &predicted, &analytic) == 5);
    if (only_x >= 0.0 && x != only_x) continue;
    total += std::abs(predicted - analytic);
    ++rows;
  }
  REQUIRE(rows > 0);
  return total / rows;
}

TEST_CASE("toy_urn end to end: a short run learns the quantiles and writes every output with the right columns") {
  TemporaryFolder folder;
  // 400 steps of batch 256 (half a second) bring the mean |predicted − analytic| over the table's
  // 180 entries to 0.038, and to 0.006 at x = 1000; after 1 step it is 0.105 and 0.048, after 40
  // steps 0.066 (measured): a model that does not learn misses both bounds.
  const RunResult run = run_app_binary("toy_urn", "--steps 400 --batch 256 --threads 1 --out " + folder.file("out") +
                                                      " --save " + folder.file("m.ckpt"));
  INFO(run.err);
  REQUIRE(run.status == 0);
  const std::string csv = slurp(folder.file("out/quantiles.csv"));
  CHECK(csv.rfind("x,tau,bin,predicted,analytic\n", 0) == 0);
  CHECK(count_lines(csv) == 1 + 4 * 9 * 5);
  CHECK(csv.find("nan") == std::string::npos);
  CHECK(mean_quantile_error(csv) < 0.055);
  CHECK(mean_quantile_error(csv, 1000.0) < 0.02);
  CHECK(std::filesystem::exists(folder.file("out/fig2_toy_urn.svg")));
  CHECK(std::filesystem::file_size(folder.file("out/quantiles_predicted.npy")) == 128 + 4 * 9 * 5 * 4);
  // Evaluating the saved model gives the same table.
  const RunResult load = run_app_binary("toy_urn", "--load " + folder.file("m.ckpt") + " --out " + folder.file("again"));
  REQUIRE(load.status == 0);
  CHECK(slurp(folder.file("again/quantiles.csv")) == csv);
  // The checkpoint of another loss is refused by name.
  const RunResult wrong = run_app_binary("toy_urn", "--loss xe --load " + folder.file("m.ckpt") + " --out " + folder.file("x"));
  CHECK(wrong.status == 2);
  CHECK(wrong.err.find("loss 'empl', expected 'xe'") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(folder.file("x")));
}

TEST_CASE("toy_urn --s1 writes the supplementary table") {
  TemporaryFolder folder;
  const RunResult run = run_app_binary("toy_urn", "--s1 --s1-samples 20000 --out " + folder.file("s1"));
  REQUIRE(run.status == 0);
  const std::string csv = slurp(folder.file("s1/s1_expected_emd.csv"));
  CHECK(csv.rfind("N,median_analytic,median_monte_carlo,mean_analytic,mean_monte_carlo\n", 0) == 0);
  CHECK(count_lines(csv) == 6);
  CHECK(csv.find("\n5,0.240000,") != std::string::npos);
}

TEST_CASE("toy_urn: SIGINT and SIGTERM save a checkpoint and exit 130, and --resume finishes the run") {
  for (const std::string signal : {"INT", "TERM"}) {
    TemporaryFolder folder;
    // Small steps, so that the resumed run is short; many of them, so that the run is still going
    // when the signal comes: it is sent as soon as the first periodic checkpoint (step 1000)
    // appears, 7000 steps before the end (the wait gives up after 30 s, and the test then fails).
    const std::string common = " --steps 8000 --batch 16 --threads 1 --quiet --save " + folder.file("run.ckpt");
    const std::string script = std::string(EMPL_BINARY_DIR) + "/toy_urn" + common + " --out " + folder.file("first") +
                               " > /dev/null 2> " + folder.file("err") + " & pid=$!; i=0; while [ ! -e " +
                               folder.file("run.ckpt") + " ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; kill -" +
                               signal + " $pid; wait $pid; echo $? > " + folder.file("status");
    REQUIRE(std::system(("sh -c '" + script + "'").c_str()) == 0);
    INFO("SIG", signal, ": ", slurp(folder.file("err")));
    CHECK(slurp(folder.file("status")) == "130\n");
    const std::string expected = signal == "INT" ? "interrupted (SIGINT) at step" : "terminated (SIGTERM) at step";
    CHECK(slurp(folder.file("err")).find(expected) != std::string::npos);
    CHECK(std::filesystem::exists(folder.file("run.ckpt")));
    CHECK_FALSE(std::filesystem::exists(folder.file("first")));  // nothing half-written
    const RunResult resumed = run_app_binary("toy_urn", common + " --resume " + folder.file("run.ckpt") + " --out " + folder.file("second"));
    INFO(resumed.err);
    CHECK(resumed.status == 0);
    CHECK(std::filesystem::exists(folder.file("second/quantiles.csv")));
  }
}

TEST_CASE("toy_urn --dump-tape prints the first step's nodes, with the fused ReLU → BatchNorm, and trains nothing") {
  const RunResult run = run_app_binary("toy_urn", "--dump-tape --batch 4");
  REQUIRE(run.status == 0);
  const std::string nodes =
      "#0 linear [4,128] <- const [4,2], 0.weight [2,128], 0.bias [1,128]\n"
      "#1 relu_batch_norm [4,128] <- #0, 1.weight [128], 1.bias [128]\n"
      "#2 linear [4,128] <- #1, 2.weight [128,128], 2.bias [1,128]\n"
      "#3 relu_batch_norm [4,128] <- #2, 3.weight [128], 3.bias [128]\n"
      "#4 linear [4,5] <- #3, 4.weight [128,5], 4.bias [1,5]\n"
      "#5 softmax [4,5] <- #4\n"
      "#6 empl [] <- #5\n";
  CHECK(run.out.substr(0, nodes.size()) == nodes);
  CHECK(run.out.find("toy_urn: loss") == std::string::npos);  // no training summary: it trained nothing
}
