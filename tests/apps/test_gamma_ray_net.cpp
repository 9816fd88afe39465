// The gamma-ray network, its batches, metrics, dataset cache and subcommands
// (apps/gamma_ray/network, experiment, dataset, commands): output shapes and normalisation, a
// finite-difference check of every parameter's gradient of a tiny network, the node-major batch
// layout, the alternative metrics on hand-worked numbers, the cache's refusals, and bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/gamma_ray/dataset.hpp"
#include "apps/gamma_ray/experiment.hpp"
#include "apps/gamma_ray/figure.hpp"
#include "apps/gamma_ray/network.hpp"
#include "apps/gamma_ray/simulate.hpp"
#include "autograd/elementwise.hpp"
#include "autograd/gradcheck.hpp"
#include "autograd/reduce.hpp"
#include "core/error.hpp"
#include "core/random.hpp"
#include "io/atomic_file.hpp"
#include "run_binary.hpp"

using namespace empl;
using namespace empl::gamma_ray;
using namespace empl::testing;

namespace {

// nside 4: 2 blocks (4 → 2 → 1 node), small widths.
NetworkConfig tiny_config() { return {.nside = 4, .features = {3, 4}, .order = 3, .dense = {6, 5}, .bins = 21}; }

Tensor random_tensor(const Shape& shape, float lo, float hi, uint64_t stream) {
  Tensor t = Tensor::empty(shape);
  fill_uniform(t, lo, hi, 7, stream);
  return t;
}

// Σ r·q for a fixed random r: every output element enters the scalar.
double weighted_output(GammaNetwork& model, const Tensor& maps, const Tensor& scalars, const Tensor& r, Tape& tape) {
  const Var q = model.forward(tape, maps, scalars);
  double s = 0.0;
  for (int64_t i = 0; i < q.value.numel(); ++i) s += static_cast<double>(r[i]) * q.value[i];
  return s;
}

}  // namespace

TEST_CASE("gamma_ray network: output [B, 21], rows sum to 1, graph part pools to one node") {
  GammaNetwork model(tiny_config(), 3);
  const int64_t b = 5;
  const Tensor maps = random_tensor({16, b, 1}, 0.0f, 0.2f, 1), scalars = random_tensor({b, 2}, -1.0f, 3.0f, 2);
  Tape tape;
  const Var f = model.features(tape, maps);
  CHECK(f.shape() == Shape{b, 4});
  const Var q = model.forward(tape, maps, scalars);
  REQUIRE(q.shape() == Shape{b, 21});
  for (int64_t i = 0; i < b; ++i) {
    double sum = 0.0;
    for (int64_t j = 0; j < 21; ++j) {
      CHECK(q.value[i * 21 + j] > 0.0f);
      sum += q.value[i * 21 + j];
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
  }
  // The paper preset's parameter count: "about 3.1 M" (GAMMA_RAY.md) without building its graph.
  // Here the small preset's is checked against the layer sizes instead.
  CHECK(model.parameter_count() == 3 * 1 * 3 + 3 + 3 * 3 * 4 + 4 + (6 * 6 + 6) + (6 * 5 + 5) + 5 * 21);
  CHECK_THROWS_WITH_AS(model.features(tape, Tensor::zeros({8, b, 1})), doctest::Contains("expected [16, B, 1]"), Error);
  CHECK_THROWS_AS(GammaNetwork({.nside = 4, .features = {3}}, 1), Error);  // 1 block cannot reach one node
}

TEST_CASE("gamma_ray network: every parameter's gradient matches central differences") {
  GammaNetwork model(tiny_config(), 5);
  const int64_t b = 4;
  const Tensor maps = random_tensor({16, b, 1}, 0.0f, 1.0f, 3), scalars = random_tensor({b, 2}, -1.0f, 1.0f, 4);
  const Tensor r = random_tensor({b, 21}, -1.0f, 1.0f, 5);
  // The block biases start at 0 and the dense weights are small: move them off the start so that
  // a bias gradient or a ReLU kink is not trivially zero.
  Tensor& values = model.flat_values();
  Rng rng(11);
  for (int64_t i = 0; i < values.numel(); ++i) values[i] += 0.3f * (rng.uniform() - 0.5f);
  Tape tape;
  {
    const Var q = model.forward(tape, maps, scalars);
    model.zero_grad();
    tape.backward(q, r);
    tape.clear();
  }
  const Tensor analytic = model.flat_gradients().clone();
  // Batch norm in training mode: the running statistics change every pass; the loss does not
  // depend on them in training mode, so the differences are unaffected.
  const double h = 2e-3;  // small enough that few max-pool or ReLU kinks lie within ±h
  double worst = 0.0, largest = 0.0;
  std::vector<double> numeric(static_cast<size_t>(values.numel()));
  for (int64_t i = 0; i < values.numel(); ++i) {
    const float saved = values[i];
    values[i] = saved + static_cast<float>(h);
    const double up = weighted_output(model, maps, scalars, r, tape);
    tape.clear();
    values[i] = saved - static_cast<float>(h);
    const double down = weighted_output(model, maps, scalars, r, tape);
    tape.clear();
    values[i] = saved;
    numeric[static_cast<size_t>(i)] = (up - down) / (2 * h);
    largest = std::max(largest, std::abs(numeric[static_cast<size_t>(i)]));
  }
  int64_t bad = 0;
  for (int64_t i = 0; i < values.numel(); ++i) {
    const double n = numeric[static_cast<size_t>(i)], a = analytic[i], error = std::abs(a - n);
    worst = std::max(worst, error);
    bad += error > 2e-3 * largest + 3e-2 * std::abs(n);
  }
  INFO("worst error " << worst << ", largest gradient " << largest);
  CHECK(bad == 0);
  CHECK(largest > 1e-3);
}

TEST_CASE("gamma_ray network: input gradients pass gradcheck") {
  GammaNetwork model(tiny_config(), 9);
  const int64_t b = 3;
  const GradcheckResult result = gradcheck(
      [&](Tape& tape, const std::vector<Var>& in) { return model.head(tape, model.features(tape, in[0]), in[1]); },
      {random_tensor({16, b, 1}, 0.0f, 1.0f, 6), random_tensor({b, 2}, -1.0f, 1.0f, 7)});
  INFO(result.worst);
  CHECK(result.ok);
}

TEST_CASE("gamma_ray fill_batch: node-major maps divided by the total, log10 total and the tau feature") {
  Dataset d;
  d.spec.nside = 2;
  d.maps = 2;
  d.nodes = 4;
  d.bins = 21;
  d.counts = {1, 0, 3, 0, /* map 1 */ 10, 20, 30, 40};
  d.totals = {4, 100};
  d.labels.assign(42, 0.0f);
  d.labels[20] = 1.0f;
  d.labels[21] = 1.0f;
  Tensor maps, scalars, labels;
  const std::vector<int64_t> rows = {1, 0};
  const std::vector<float> taus = {0.25f, 0.5f};
  fill_batch(d, rows, taus, maps, scalars, &labels);
  REQUIRE(maps.shape() == Shape{4, 2, 1});
  // maps[v, b]: node v of batch entry b (entry 0 is map 1).
  const float expected[] = {0.1f, 0.25f, 0.2f, 0.0f, 0.3f, 0.75f, 0.4f, 0.0f};
  for (int i = 0; i < 8; ++i) CHECK(maps[i] == doctest::Approx(expected[i]));
  CHECK(scalars[0] == doctest::Approx(2.0));   // log10 100
  CHECK(scalars[1] == doctest::Approx(-3.0));  // (0.25 − 0.5)·12
  CHECK(scalars[2] == doctest::Approx(std::log10(4.0)));
  CHECK(scalars[3] == doctest::Approx(0.0));
  CHECK(labels[0] == 1.0f);   // entry 0 is map 1, whose label is bin 0
  CHECK(labels[20] == 0.0f);
  CHECK(labels[21 + 20] == 1.0f);  // entry 1 is map 0, whose label is bin 20
  CHECK(labels[21 + 0] == 0.0f);
  const std::vector<int64_t> outside = {2};
  const std::vector<float> one = {0.5f};
  CHECK_THROWS_AS(fill_batch(d, outside, one, maps, scalars, nullptr), Error);
}

TEST_CASE("gamma_ray measure_batch_norm: the statistics of the weights it is given, not of those it starts from") {
  Dataset d;  // 30 random maps at nside 4 (28 for training)
  d.spec.nside = 4;
  d.maps = 30;
  d.nodes = 16;
  d.bins = 21;
  Rng rng(11);
  for (int64_t i = 0; i < d.maps * d.nodes; ++i) d.counts.push_back(static_cast<float>(rng.uniform_int(20)));
  for (int64_t m = 0; m < d.maps; ++m) {
    float total = 0.0f;
    for (int64_t v = 0; v < d.nodes; ++v) total += d.counts[static_cast<size_t>(m * d.nodes + v)];
    d.totals.push_back(total);
  }
  d.labels.assign(static_cast<size_t>(d.maps * d.bins), 1.0f / 21.0f);
  const auto buffers = [](GammaNetwork& model) {
    std::vector<float> values;
    model.visit_buffers("", [&](const std::string&, Tensor& t) { values.insert(values.end(), t.values().begin(), t.values().end()); });
    return values;
  };
  GammaNetwork fresh(tiny_config(), 3), off(tiny_config(), 3);
  const std::vector<float> initial = buffers(fresh);
  off.visit_buffers("", [](const std::string&, Tensor& t) { t.fill(7.0f); });
  // 300 batches: what the starting statistics keep is 0.9^300 = 2e-14 of them.
  measure_batch_norm(fresh, d, 1, 8, 300);
  measure_batch_norm(off, d, 1, 8, 300);
  const std::vector<float> a = buffers(fresh), b = buffers(off);
  REQUIRE(a.size() == b.size());
  int moved = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-5));
    moved += std::abs(a[i] - initial[i]) > 1e-3f;
  }
  CHECK(moved > static_cast<int>(a.size()) / 2);  // measured, not left at the initial 0 and 1
  CHECK_FALSE(fresh.training());
}

TEST_CASE("gamma_ray metrics: table and alternative definitions on hand-worked numbers") {
  // Two bins. Map 0: predicted (0.5, 0.5), truth (1, 0): Δq = (−0.5, 0.5), ΔQ = (−0.5, 0).
  // Map 1: predicted (0.2, 0.8), truth (0.2, 0.8): no error.
  const Tensor p = Tensor::from({2, 2}, std::vector<float>{0.5f, 0.5f, 0.2f, 0.8f});
  const Tensor t = Tensor::from({2, 2}, std::vector<float>{1.0f, 0.0f, 0.2f, 0.8f});
  const Metrics m = table_metrics(p, t);
  CHECK(m.mae == doctest::Approx(0.25));            // (0.5 + 0.5) / 4
  CHECK(m.mse == doctest::Approx(0.125));           // (0.25 + 0.25) / 4
  CHECK(m.em1 == doctest::Approx(0.125));           // 0.5 / 4
  CHECK(m.em2 == doctest::Approx(std::sqrt(0.0625)));  // sqrt(0.25 / 4)
  CHECK(m.intersection == doctest::Approx(0.75));   // (0.5 + 1) / 2
  const AltMetrics a = alt_metrics(p, t);
  CHECK(a.rmse == doctest::Approx(std::sqrt(0.125)));
  CHECK(a.sse == doctest::Approx(0.25));            // (0.25 + 0.25 + 0) / 2 maps
  CHECK(a.em1_sum == doctest::Approx(0.25));        // 0.5 / 2 maps
  CHECK(a.em2_norm == doctest::Approx(0.25));       // sqrt(0.25) / 2 maps
  CHECK(a.em2_sum == doctest::Approx(0.125));       // 0.25 / 2 maps
}

TEST_CASE("gamma_ray dataset cache: a truncated, corrupted or foreign file is refused and simulated again") {
  TemporaryFolder folder;
  const std::string path = folder.file("data.bin");
  const DatasetSpec spec{.nside = 4, .roi_deg = 20.0, .seed = 3, .simulated = 150};
  bool simulated = false;
  const Dataset first = load_or_simulate(path, spec, true, &simulated);
  CHECK(simulated);
  REQUIRE(first.maps > 0);
  CHECK(first.counts.size() == static_cast<size_t>(first.maps * 16));
  const std::string good = read_file(path);
  load_or_simulate(path, spec, true, &simulated);
  CHECK_FALSE(simulated);  // a valid cache is reused

  const auto refused_then_same = [&](const std::string& bytes, const char* reason) {
    CHECK_THROWS_WITH_AS(parse_dataset(bytes, spec, "cache"), doctest::Contains(reason), Error);
    write_file_atomically(path, bytes);
    const Dataset again = load_or_simulate(path, spec, true, &simulated);
    CHECK(simulated);
    CHECK(again.counts == first.counts);
    CHECK(again.labels == first.labels);
    CHECK(read_file(path) == good);  // and the cache is whole again
  };
  refused_then_same(good.substr(0, good.size() - 7), "truncated");
  refused_then_same(good.substr(0, 40), "truncated");
  std::string corrupted = good;
  corrupted[corrupted.size() - 100] ^= 0x10;
  refused_then_same(corrupted, "checksum");
  std::string foreign = good;
  foreign[0] = 'X';
  refused_then_same(foreign, "magic");
  DatasetSpec other = spec;
  other.seed = 4;
  CHECK_THROWS_WITH_AS(parse_dataset(good, other, "cache"), doctest::Contains("seed 3"), Error);
  other = spec;
  other.simulated = 151;
  CHECK_THROWS_WITH_AS(parse_dataset(good, other, "cache"), doctest::Contains("150 simulated"), Error);
}

TEST_CASE("gamma_ray train/evaluate/table/figure: bad input is one line and exit 2, nothing written") {
  TemporaryFolder folder;
  const std::string out = " --out " + folder.file("out");
  const char* rows[] = {
      "train --preset tiny",      "train --loss hinge",     "train --steps 0",         "train --simulated 3",
      "train --roi-deg 30",       "train --threads -1",     "evaluate",                "table --save x.ckpt",
      "train --test-maps 0",      "train --bogus",          "train --steps abc",       "evaluate --load /nonexistent.ckpt", "figure",
      "train --learning-rate 0",  "train --learning-rate nan", "train --average-decay 1", "train --average-steps 0",
  };
  for (const char* row : rows) {
    const RunResult r = run_app_binary("gamma_ray", std::string(row) + out, 60);
    INFO(row << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK_FALSE(std::filesystem::exists(folder.file("out")));
  }
  const RunResult help = run_app_binary("gamma_ray", "table --help", 60);
  CHECK(help.status == 0);
  CHECK(help.out.find("--preset") != std::string::npos);
}

TEST_CASE("gamma_ray dataset: stopping a map at its first source above 60 counts keeps every passing map's bits") {
  SimulationConfig full;
  full.nside = 8;
  SimulationConfig stopping = full;
  stopping.stop_at_failed_cut = true;
  const SimulationSetup a(full), b(stopping);
  int passing = 0;
  for (uint64_t i = 0; i < 300; ++i) {
    const SimulatedMap x = simulate_map(a, 5, i), y = simulate_map(b, 5, i);
    REQUIRE(x.passes_cuts == y.passes_cuts);
    if (!x.passes_cuts) continue;
    ++passing;
    CHECK(x.counts == y.counts);
    CHECK(x.label == y.label);
    CHECK(x.sources.size() == y.sources.size());
  }
  CHECK(passing > 10);
}

TEST_CASE("gamma_ray figure: the dim, medium and bright maps are the 10%, 50% and 90% points of the mean label bin") {
  // Ten maps at nside 4; map row i has all of its label in bin bin_of[i], so its mean bin is that.
  const int64_t bin_of[] = {7, 2, 9, 0, 5, 1, 8, 3, 6, 4};
  Dataset data;
  data.spec.nside = 4;
  data.maps = 10;
  data.nodes = 16;
  data.bins = 21;
  data.labels.assign(static_cast<size_t>(data.maps * data.bins), 0.0f);
  for (int64_t i = 0; i < data.maps; ++i) {
    data.labels[static_cast<size_t>(i * data.bins + bin_of[i])] = 1.0f;
    for (int64_t v = 0; v < data.nodes; ++v) data.counts.push_back(static_cast<uint16_t>(1 + (i * 7 + v * 3) % 11));
    double total = 0;
    for (int64_t v = 0; v < data.nodes; ++v) total += data.counts[static_cast<size_t>(i * data.nodes + v)];
    data.totals.push_back(total);
  }
  const std::vector<int64_t> rows = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  GammaNetwork model(tiny_config(), 3);
  // Sorted by mean bin, the 10 maps are rows 3 5 1 7 9 4 8 0 6 2; the figure takes positions 1, 5 and 8
  // (n/10, n/2, n − 1 − n/10): mean bins 1, 5 and 8, i.e. rows 5, 4 and 6.
  for (const bool quantile : {true, false}) {
    const std::string svg = figure_svg(model, data, rows, quantile ? "empl" : "xe", quantile);
    const size_t dim = svg.find("map 5: "), medium = svg.find("map 4: "), bright = svg.find("map 6: ");
    REQUIRE(dim != std::string::npos);
    REQUIRE(medium != std::string::npos);
    REQUIRE(bright != std::string::npos);
    CHECK(dim < medium);
    CHECK(medium < bright);
    CHECK((svg.find("5-95%") != std::string::npos) == quantile);
    CHECK((svg.find("25-75%") != std::string::npos) == quantile);
    CHECK((svg.find("median") != std::string::npos) == quantile);  // a bin-wise loss's curve is its prediction, no median
  }
  CHECK_THROWS_WITH_AS(figure_svg(model, data, {0, 1}, "empl", true), doctest::Contains("2 test maps, need at least 3"), Error);
}

TEST_CASE("gamma_ray table, then figure: the table's files, a second run that loads every network, the figure") {
  TemporaryFolder folder;
  const std::string common = " --simulated 1000 --steps 10 --threads 2 --quiet --data " + folder.file("data.bin") + " --out " + folder.file("out");
  const RunResult first = run_app_binary("gamma_ray", "table" + common);
  INFO(first.err);
  REQUIRE(first.status == 0);
  const std::string csv = slurp(folder.file("out/table1.csv"));
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  CHECK(line == "loss,mae,mse,em1,em2,intersection");
  for (const char* loss : {"mae", "mse", "xe", "empl", "sempl", "em1"}) {
    REQUIRE(std::getline(lines, line));
    std::istringstream fields(line);
    std::string name;
    std::getline(fields, name, ',');
    CHECK(name == loss);
    double mae = 0, mse = 0, em1 = 0, em2 = 0, intersection = 0;
    char comma = 0;
    fields >> mae >> comma >> mse >> comma >> em1 >> comma >> em2 >> comma >> intersection;
    INFO(line);
    CHECK(mae > 0);
    CHECK(mse < mae);            // per-bin errors below 1: squares are smaller
    CHECK(em2 >= em1);           // a root mean square is at least the mean of the absolute values
    CHECK(intersection > 0.2);
    CHECK(intersection < 1.0);
    CHECK(intersection == doctest::Approx(1.0 - 21 * mae / 2).epsilon(1e-4));  // Σ min(p, q) = 1 − Σ|p − q|/2
  }
  CHECK(slurp(folder.file("out/table1.md")).find("Training time (this run): mae ") != std::string::npos);
  // Run again: every network is loaded from OUT/checkpoints, and the table is the same.
  const RunResult second = run_app_binary("gamma_ray", "table" + common);
  REQUIRE(second.status == 0);
  CHECK(slurp(folder.file("out/table1.csv")) == csv);
  CHECK(slurp(folder.file("out/table1.md"))
            .find("Training time (this run): mae loaded; mse loaded; xe loaded; empl loaded; sempl loaded; em1 loaded;") !=
        std::string::npos);
  const RunResult figure = run_app_binary("gamma_ray", "figure" + common);
  INFO(figure.err);
  REQUIRE(figure.status == 0);
  const std::string svg = slurp(folder.file("out/fig4_gamma_ray.svg"));
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("empl network") != std::string::npos);  // the EMPL checkpoint of the table, with its bands
  CHECK(svg.find("5-95%") != std::string::npos);
}

TEST_CASE("gamma_ray train: SIGINT saves a whole checkpoint and exits 130; nothing else is written") {
  TemporaryFolder folder;
  const std::string data = " --simulated 2000 --threads 1 --data " + folder.file("data.bin");
  // The signal is sent once the dataset line is printed (training starts right after), after a
  // second of training; the wait for the line gives up after 60 s, and the test then fails.
  const std::string script = std::string(EMPL_BINARY_DIR) + "/gamma_ray train --steps 100000" + data + " --save " +
                             folder.file("run.ckpt") + " --out " + folder.file("out") + " > " + folder.file("log") +
                             " 2> " + folder.file("err") + " & pid=$!; i=0; while ! grep -q dataset " + folder.file("log") +
                             " && [ $i -lt 6000 ]; do sleep 0.01; i=$((i+1)); done; sleep 1; kill -INT $pid; wait $pid; echo $? > " +
                             folder.file("status");
  REQUIRE(std::system(("sh -c '" + script + "'").c_str()) == 0);
  INFO(slurp(folder.file("err")));
  CHECK(slurp(folder.file("status")) == "130\n");
  CHECK(slurp(folder.file("err")).find("interrupted (SIGINT) at step") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(folder.file("out")));  // no half-written results
  const RunResult loaded = run_app_binary("gamma_ray", "evaluate --load " + folder.file("run.ckpt") + data + " --out " + folder.file("eval"));
  INFO(loaded.err);
  CHECK(loaded.status == 0);  // the checkpoint is whole: it loads
}

TEST_CASE("gamma_ray band_coverage: inside the band, or outside by less than half a photon of the map") {
  // Two maps, 3 bins; map 0 has 1000 counts (half a photon: 0.0005), map 1 has 100 (0.005).
  // True densities → cumulative: map 0: 0.5, 1, 1; map 1: 0.2, 0.7, 1.
  const Tensor truth = Tensor::from({2, 3}, std::vector<float>{0.5f, 0.5f, 0.0f, 0.2f, 0.5f, 0.3f});
  const Tensor low = Tensor::from({2, 3}, std::vector<float>{0.4f, 0.9f, 0.9f, 0.3f, 0.6f, 0.99f});
  // map 0 bin 2: 1 is above 0.9994 by 0.0006 (> 0.0005): out; bin 3: 0.9996 misses by 0.0004: in.
  // map 1 bin 1: 0.2 is below 0.3 by 0.1: out; bin 2: 0.7 in [0.6, 0.8]; bin 3: 0.996 misses by 0.004: in.
  const Tensor high = Tensor::from({2, 3}, std::vector<float>{0.6f, 0.9994f, 0.9996f, 0.35f, 0.8f, 0.996f});
  const std::vector<double> totals = {1000.0, 100.0};
  const std::vector<double> coverage = band_coverage(low, high, truth, totals);
  REQUIRE(coverage.size() == 3);
  CHECK(coverage[0] == 0.5);  // map 0 in, map 1 out
  CHECK(coverage[1] == 0.5);  // map 0 out by 0.0006, map 1 in
  CHECK(coverage[2] == 1.0);  // both in by their half photon
  CHECK_THROWS_WITH_AS(band_coverage(low, high, truth, std::vector<double>{1000.0}), doctest::Contains("1 totals"), Error);
}
