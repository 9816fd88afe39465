// empl_fit end to end: the toy urn written as files (`empl_fit example`), trained for a few hundred
// steps, must predict quantiles near the analytic binomial ones, which the untrained network does
// not; predict's files have the shapes, order of levels and CSV header outside code relies on; the
// total count of raw-count histograms is predicted too.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "io/npy.hpp"
#include "run_binary.hpp"

using namespace empl;
using namespace empl::testing;

namespace {

// A small urn and a short run: 4000 rows, 64-wide layers, 400 steps of 256.
const std::string kExample = "example --rows 4000 --seed 3";
const std::string kTrain = "--hidden 64,64 --steps 400 --batch 256 --threads 2 --quiet";

void run_ok(const std::string& arguments) {
  const RunResult run = run_app_binary("empl_fit", arguments);
  INFO("empl_fit ", arguments, "\nstderr: ", run.err);
  REQUIRE(run.status == 0);
}

// Mean |predicted − analytic| over analytic.csv's rows (sample,tau,bin,cumulative, levels 0.1,
// 0.5, 0.9), bins 0..3 (bin 4 is 1 for every histogram), with predictions [4, 3, 5].
double mean_error(const Tensor& predicted, const std::string& analytic_csv) {
  std::istringstream lines(analytic_csv);
  std::string line;
  std::getline(lines, line);
  double total = 0.0;
  int count = 0;
  const float taus[] = {0.1f, 0.5f, 0.9f};
  while (std::getline(lines, line)) {
    int sample, bin;
    double tau, cumulative;
    REQUIRE(std::sscanf(line.c_str(), "%d,%lf,%d,%lf", &sample, &tau, &bin, &cumulative) == 4);
    if (bin == 4) continue;
    const int level = static_cast<int>(std::find_if(std::begin(taus), std::end(taus), [&](float t) { return std::abs(t - tau) < 1e-6; }) - taus);
    REQUIRE(level < 3);
    total += std::abs(predicted[(sample * 3 + level) * 5 + bin] - cumulative);
    ++count;
  }
  REQUIRE(count == 4 * 3 * 4);
  return total / count;
}

}  // namespace

TEST_CASE("empl_fit: trained on the urn as files, its quantiles match the analytic ones; untrained they do not") {
  TemporaryFolder folder;
  const std::string data = folder.file("urn");
  run_ok(kExample + " --out " + data);
  const std::string analytic = slurp(data + "/analytic.csv");
  double errors[2];
  for (const int steps : {400, 1}) {
    const std::string model = folder.file("model" + std::to_string(steps)), out = folder.file("pred" + std::to_string(steps));
    run_ok("train --x " + data + "/x.csv --y " + data + "/h.csv --out " + model + " " + kTrain + " --steps " + std::to_string(steps));
    run_ok("predict --model " + model + " --x " + data + "/query.csv --tau 0.1,0.5,0.9 --out " + out);
    const Tensor cumulative = load_npy(out + "/cumulative.npy");
    REQUIRE(cumulative.shape() == Shape{4, 3, 5});
    errors[steps == 1] = mean_error(cumulative, analytic);
  }
  MESSAGE("mean |predicted - analytic|: trained ", errors[0], ", untrained ", errors[1]);
  CHECK(errors[0] < 0.05);
  CHECK(errors[1] > 0.05);
}
