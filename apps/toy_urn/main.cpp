// toy_urn: the paper's first example (section 3.1, Fig. 2, supplementary S1). Trains the MLP on
// histograms of x balls drawn from an urn of N = 5, then compares its predicted quantiles of the
// cumulative histogram with the analytic binomial quantiles and writes the figure.
//
//   toy_urn [--steps 10000] [--loss empl|em1|xe|mae] [--out DIR] [--save CKPT] [--load CKPT]
//           [--compare EM1.ckpt,XE.ckpt] [--s1] [--average-decay 0.998] [--average-steps 2000]
//           [--dump-tape]
//
// Evaluation uses an exponential moving average of the weights over the last 2000 steps
// (optim/weight_average.hpp): across seeds and OpenBLAS kernels it keeps x = 1000 within its
// bound where the last step's weights did not (scripts/accuracy.sh).
#include <cstdio>
#include <optional>
#include <sstream>

#include "apps/common/app_options.hpp"
#include "apps/common/run_app.hpp"
#include "apps/common/train_or_load.hpp"
#include "apps/toy_urn/evaluation.hpp"
#include "apps/toy_urn/toy_model.hpp"
#include "apps/toy_urn/urn_data.hpp"
#include "apps/toy_urn/urn_math.hpp"
#include "autograd/tape_dump.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rowwise.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/npy.hpp"
#include "training/communicator.hpp"
#include "optim/weight_average.hpp"

using namespace empl;
using namespace empl::toy_urn;

namespace {

// Supplementary S1: expected EMD of the median and mean strategies for one draw, odd N 3..11.
int run_s1(const CommonOptions& options, int64_t samples) {
  OutputDirectory out(options.out);
  std::ostringstream csv;
  csv << "N,median_analytic,median_monte_carlo,mean_analytic,mean_monte_carlo\n";
  std::printf("Supplementary S1: expected EMD for a single draw (%lld Monte-Carlo samples)\n", static_cast<long long>(samples));
  std::printf("  N   median: analytic  Monte Carlo   mean: analytic  Monte Carlo\n");
  for (int n = 3; n <= 11; n += 2) {
    const StrategyEstimate estimate = monte_carlo_emd(n, samples, options.seed);
    char line[160];
    std::snprintf(line, sizeof line, "%d,%.6f,%.6f,%.6f,%.6f\n", n, expected_emd_median_strategy(n),
                  estimate.median_strategy, expected_emd_mean_strategy(n), estimate.mean_strategy);
    csv << line;
    std::printf(" %2d   %16.6f %12.6f %16.6f %12.6f\n", n, expected_emd_median_strategy(n), estimate.median_strategy,
                expected_emd_mean_strategy(n), estimate.mean_strategy);
  }
  std::printf("wrote %s\n", out.write("s1_expected_emd.csv", csv.str()).c_str());
  return 0;
}

// --dump-tape: records the first training step's forward pass and loss, prints the tape that
// backward() would walk (autograd/tape_dump.hpp, docs/2-tape.md) and trains nothing.
int run_dump_tape(const CommonOptions& options) {
  auto model = build_model(options.seed);
  Tensor inputs = Tensor::empty({options.batch, kFeatures}), labels = Tensor::empty({options.batch, kBins});
  Tensor tau = Tensor::empty({options.batch, 1});
  make_batch(options.seed, 0, inputs, labels, tau, uses_tau(options.loss) ? -1.0f : 0.5f);
  Tape tape;
  const Var loss = training_loss(options.loss, tape, model->forward(tape, Var(inputs)), labels, tau);
  std::printf("%s", dump_tape(tape, model->named_parameters()).c_str());
  std::printf("loss %.6f\n", static_cast<double>(loss.value[0]));
  return 0;
}

// The prediction at x = 1 of a model trained with another loss, for the figure's comparison.
Comparison comparison_from(const std::string& path) {
  auto model = build_model(1);
  const auto metadata = load_model(path, *model, {{"app", "toy_urn"}});
  const QuantileTable table = evaluate(*model, false);
  std::string label = metadata.count("loss") ? metadata.at("loss") : path;
  for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return {label, table.predicted[0][0]};
}

int run(int argc, char** argv) {
  cxxopts::Options parser("toy_urn", "Quantiles of histograms of balls drawn from an urn (paper section 3.1)");
  const CommonDefaults defaults{.steps = 10000, .batch = 2048, .loss = "empl",
                                .losses = {std::begin(kLosses), std::end(kLosses)}, .out = "out/toy_urn",
                                .data_parallel = true};
  add_common_options(parser, defaults);
  parser.add_options()
      ("compare", "checkpoints of models trained with other losses (e.g. em1, xe) to draw at x = 1",
       cxxopts::value<std::vector<std::string>>())
      ("s1", "supplementary S1 instead of training: expected EMD of one draw, analytic vs Monte Carlo")
      ("dump-tape", "print the nodes one training step records on the tape (op, output shape, inputs), train nothing")
      ("s1-samples", "Monte-Carlo samples for --s1", cxxopts::value<int64_t>()->default_value("1000000"))
      ("average-decay", "evaluate with an exponential moving average of the weights of this decay (0: off)",
       cxxopts::value<float>()->default_value("0.998"))
      ("average-steps", "the average runs over the last this many steps (at most the run's second half)", cxxopts::value<int64_t>()->default_value("2000"));
  const auto parsed = parse_command_line(parser, argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", parser.help().c_str());
    return 0;
  }
  const CommonOptions options = read_common_options(parsed, defaults);
  set_num_threads(options.threads);
  if (parsed.count("s1")) {
    const int64_t samples = parsed["s1-samples"].as<int64_t>();
    if (samples <= 0) fail("--s1-samples must be positive, got ", samples);
    return run_s1(options, samples);
  }
  if (parsed.count("dump-tape")) return run_dump_tape(options);
  std::vector<Comparison> comparisons;
  if (parsed.count("compare"))
    for (const std::string& path : parsed["compare"].as<std::vector<std::string>>()) comparisons.push_back(comparison_from(path));

  // Checked now, before any training; by rank 0 alone, which alone writes (ranks making and
  // removing the same folder at once would race).
  std::optional<OutputDirectory> out;
  if (world().rank() == 0) out.emplace(options.out);
  auto model = build_model(options.seed);
  const std::map<std::string, std::string> identity = {{"app", "toy_urn"}, {"loss", options.loss}};
  const RankRows part = rank_rows(options);  // this rank's rows of each batch (all of them on one process)
  Tensor inputs = Tensor::empty({part.rows, kFeatures}), labels = Tensor::empty({part.rows, kBins});
  Tensor tau = Tensor::empty({part.rows, 1});
  const float fixed_tau = uses_tau(options.loss) ? -1.0f : 0.5f;
  const ExponentialDecay schedule{1e-3f, 0.1f, options.steps};  // 1e-3 decaying to 1e-4 over the run
  const AverageFlags averaging = read_average_flags(parsed);
  WeightAverage average(*model, averaging.decay);
  const TrainingResult result = train_or_load(*model, options, identity, schedule, [&](Tape& t, int64_t step) {
    make_batch(options.seed, static_cast<uint64_t>(step), inputs, labels, tau, fixed_tau, part.first);
    return training_loss(options.loss, t, model->forward(t, Var(inputs)), labels, tau);
  }, average_hook(average, averaging, options.steps));
  const double seconds = result.seconds, final_loss = result.final_loss;
  if (options.stop_at > 0 && options.stop_at < options.steps) {  // a part of the run: nothing to evaluate yet
    if (world().rank() == 0) std::printf("stopped at step %lld of %lld; wrote %s (continue with --resume)\n",
                                         static_cast<long long>(options.stop_at), static_cast<long long>(options.steps), options.save.c_str());
    return 0;
  }
  if (world().rank() != 0) return 0;  // rank 0 alone evaluates and writes
  evaluate_with_average(average, options);

  const QuantileTable table = evaluate(*model, uses_tau(options.loss));
  std::vector<std::string> written;
  written.push_back(out->write("quantiles.csv", quantiles_csv(table)));
  Tensor predicted = Tensor::empty({4, 9, kBins}), analytic = Tensor::empty({4, 9, kBins});
  for (int d = 0; d < 4; ++d)
    for (int t = 0; t < 9; ++t)
      for (int j = 0; j < kBins; ++j) {
        predicted[(d * 9 + t) * kBins + j] = static_cast<float>(table.predicted[d][t][j]);
        analytic[(d * 9 + t) * kBins + j] = static_cast<float>(table.analytic[d][t][j]);
      }
  written.push_back(out->write("quantiles_predicted.npy", npy_bytes(predicted)));
  written.push_back(out->write("quantiles_analytic.npy", npy_bytes(analytic)));
  written.push_back(out->write("fig2_toy_urn.svg", figure_svg(table, comparisons)));

  const Accuracy a = accuracy(table);
  std::printf("toy_urn: loss %s, %lld steps of batch %lld", options.loss.c_str(), static_cast<long long>(options.steps),
              static_cast<long long>(options.batch));
  if (seconds > 0) std::printf(", trained in %.1f s (final loss %.5f)", seconds, final_loss);
  std::printf("\n");
  std::printf("accuracy, worst case over tau = 0.1..0.9 and bins 1..4:\n");
  std::printf("  x = 1     |pred - analytic| away from the step  %.4f   (bound 0.1)\n", a.x1_abs);
  std::printf("  x = 10    distance to a tau'-quantile, counts    %.4f   (bound 0.5)\n", a.x10_counts);
  std::printf("  x = 100   distance to a tau'-quantile, counts    %.4f   (bound 0.5)\n", a.x100_counts);
  std::printf("  x = 1000  |pred - analytic|                      %.4f   (bound 0.015)\n", a.x1000_abs);
  std::printf("  x = 1000  error in tau (level of the prediction)  %.4f\n", a.x1000_tau);
  std::printf("  all bounds %s\n", a.ok() ? "hold" : "NOT met");
  for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
  if (!options.save.empty() && options.load.empty()) std::printf("wrote %s\n", options.save.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_app("toy_urn", argc, argv, run); }
