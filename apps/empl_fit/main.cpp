// empl_fit: the paper's method on anyone's data, no C++ needed (issue 13). Given features X [S, F]
// and histograms H [S, N] as .npy or CSV files, it trains a network fed (X, τ) with the EMPL to
// predict the τ-quantile of the cumulative histogram in every bin, then predicts them for new X.
//
//   empl_fit train --x X --y H --out DIR [--hidden 128,128] [--steps] [--batch] [--loss empl|...]
//                  [--val-fraction 0.1] [--normalise | --counts] [--save CKPT] [--resume CKPT]
//   empl_fit predict --model DIR --x X --tau 0.1,0.5,0.9 --out DIR [--figure]
//   empl_fit example --out DIR [--rows 20000] [--counts]     (the toy urn as files, with its analytic answer)
//
// Everything but the command line lives in the library: io/matrix_file (reading), training/
// histogram_data (checks, split, standardising, batches), training/loop (the loop),
// training/quantiles (evaluation at τ levels); fit_model.hpp holds the network and its saved form.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "apps/common/app_options.hpp"
#include "apps/common/run_app.hpp"
#include "apps/common/train_or_load.hpp"
#include "apps/empl_fit/example_data.hpp"
#include "apps/empl_fit/fit_model.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/matrix_file.hpp"
#include "io/npy.hpp"
#include "io/svg_plot.hpp"
#include "layers/tau_input.hpp"
#include "losses/metrics.hpp"
#include "training/quantiles.hpp"

using namespace empl;
using namespace empl::fit;

namespace {

constexpr int64_t kEvaluationChunk = 4096;  // validation rows per forward pass
// The levels of the validation summary: the 10–90% band, the median, and crossings between them.
constexpr float kSummaryTaus[] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f};
constexpr float kCrossingTolerance = 1e-4f;

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

Tensor rows_of(const Tensor& x, const std::vector<int64_t>& rows) {
  const int64_t width = x.shape()[1];
  Tensor out = Tensor::empty({static_cast<int64_t>(rows.size()), width});
  for (size_t i = 0; i < rows.size(); ++i) std::copy_n(x.data() + rows[i] * width, width, out.data() + i * width);
  return out;
}

// evaluate_quantiles over a bounded number of network rows (samples × levels) at a time, so that
// the memory of a forward pass does not grow with the data: 65,536 rows of 128 floats are 32 MB.
QuantilePrediction evaluate_in_chunks(Module& model, const Tensor& features, std::span<const float> taus, const QuantileQuery& query) {
  const int64_t samples = features.shape()[0], width = features.shape()[1];
  const int64_t chunk = std::max<int64_t>(1, 65536 / static_cast<int64_t>(taus.size()));
  QuantilePrediction all;
  for (int64_t begin = 0; begin < samples; begin += chunk) {
    const int64_t count = std::min(chunk, samples - begin);
    Tensor part = Tensor::empty({count, width});
    std::copy_n(features.data() + begin * width, count * width, part.data());
    const QuantilePrediction p = evaluate_quantiles(model, part, taus, query);
    all.samples += p.samples;
    all.levels = p.levels;
    all.bins = p.bins;
    all.values.insert(all.values.end(), p.values.begin(), p.values.end());
    all.totals.insert(all.totals.end(), p.totals.begin(), p.totals.end());
  }
  return all;
}

// --- train ---------------------------------------------------------------------------------

// FNV-1a over the values of X and H: a resumed run must see the data it started with.
std::string fingerprint(const Tensor& x, const Tensor& h) {
  uint64_t hash = 1469598103934665603ull;
  for (const Tensor* t : {&x, &h})
    for (const float value : t->values()) {
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      for (int byte = 0; byte < 4; ++byte) hash = (hash ^ ((bits >> (8 * byte)) & 0xff)) * 1099511628211ull;
    }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// The training loss on the validation rows, each at its own fixed τ (Rng(seed, 0x7A1, row)), in
// evaluation mode and on a tape of its own (the loop's tape still holds the step being taken).
double validation_loss(Sequential& model, const FitLoss& loss, const ModelShape& shape, const Tensor& features,
                       const HistogramTargets& targets, const TotalScale& total_scale, const std::vector<int64_t>& rows,
                       uint64_t seed, Tape& tape) {
  model.eval();
  double weighted = 0.0;
  for (size_t begin = 0; begin < rows.size(); begin += kEvaluationChunk) {
    const std::vector<int64_t> chunk(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                                     rows.begin() + static_cast<std::ptrdiff_t>(std::min(rows.size(), begin + kEvaluationChunk)));
    const int64_t batch = static_cast<int64_t>(chunk.size());
    Tensor tau = Tensor::empty({batch, 1}), labels = rows_of(targets.densities, chunk), totals = Tensor::empty({batch, 1});
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t row = chunk[static_cast<size_t>(i)];
      tau[i] = loss.uses_tau ? Rng(seed, 0x7A1, static_cast<uint64_t>(row)).uniform() : 0.5f;
      if (shape.counts) totals[i] = (targets.log_totals[static_cast<size_t>(row)] - total_scale.mean) / total_scale.scale;
    }
    Tape::NoGrad no_grad(tape);
    const Var output = model.forward(tape, append_tau(tape, Var(rows_of(features, chunk)), tau));
    weighted += batch_loss(tape, loss, shape, output, labels, tau, totals).value.item() * static_cast<double>(batch);
    tape.clear();
  }
  model.train();
  return weighted / static_cast<double>(rows.size());
}

struct Summary {
  std::string csv;   // metric,bin,value
  std::string text;  // the same for the terminal
};

// EM1 of the median, coverage of the 10–90% band per bin (bins 1..N−1: the last cumulative value
// is 1 for every histogram) and quantile crossings, on the validation rows.
Summary validation_summary(Sequential& model, const FitLoss& loss, const ModelShape& shape, const Tensor& features,
                           const HistogramTargets& targets, const TotalScale& total_scale, const std::vector<int64_t>& rows) {
  const QuantilePrediction prediction = evaluate_in_chunks(
      model, rows_of(features, rows), kSummaryTaus,
      {.head = shape.counts ? QuantileHead::density_with_total : QuantileHead::density, .feed_tau = loss.uses_tau});
  const int64_t samples = prediction.samples, bins = shape.bins, levels = prediction.levels;
  const int64_t low = 0, median = levels / 2, high = levels - 1;
  double em1 = 0.0;
  std::vector<int64_t> covered(static_cast<size_t>(bins), 0);
  std::vector<Tensor> curves(static_cast<size_t>(levels));
  for (Tensor& curve : curves) curve = Tensor::empty({samples, bins});
  double total_error = 0.0;
  int64_t total_covered = 0;
  for (int64_t s = 0; s < samples; ++s) {
    const float* density = targets.densities.data() + rows[static_cast<size_t>(s)] * bins;
    double truth = 0.0;
    for (int64_t j = 0; j < bins; ++j) {
      truth += density[j];
      em1 += std::abs(prediction.at(s, median, j) - truth);
      // A slack of 1e-6: a discrete truth often equals a quantile exactly (0 or 1).
      covered[static_cast<size_t>(j)] += prediction.at(s, low, j) - 1e-6 <= truth && truth <= prediction.at(s, high, j) + 1e-6;
      for (int64_t t = 0; t < levels; ++t) curves[static_cast<size_t>(t)][s * bins + j] = static_cast<float>(prediction.at(s, t, j));
    }
    if (shape.counts) {
      const double log_total = targets.log_totals[static_cast<size_t>(rows[static_cast<size_t>(s)])];
      const auto predicted = [&](int64_t t) { return prediction.totals[static_cast<size_t>(s * levels + t)] * total_scale.scale + total_scale.mean; };
      total_error += std::abs(predicted(median) - log_total);
      total_covered += predicted(low) - 1e-6 <= log_total && log_total <= predicted(high) + 1e-6;
    }
  }
  const int64_t crossings = quantile_crossings(curves, kCrossingTolerance);
  Summary summary;
  summary.csv = "metric,bin,value\n";
  const std::string em1_text = format("%.6f", em1 / static_cast<double>(samples * bins));
  summary.csv += "em1_median,," + em1_text + "\n";
  summary.text = "  EM1 of the median (tau = 0.5)         " + em1_text + "\n  coverage of the 10-90% band, per bin  ";
  for (int64_t j = 0; j + 1 < bins; ++j) {
    const std::string value = format("%.4f", static_cast<double>(covered[static_cast<size_t>(j)]) / static_cast<double>(samples));
    summary.csv += "coverage_10_90," + std::to_string(j) + "," + value + "\n";
    summary.text += value + (j + 2 < bins ? " " : "");
  }
  summary.text += "   (0.8 when calibrated, for continuous values)\n";
  summary.csv += "quantile_crossings,," + std::to_string(crossings) + "\n";
  summary.text += "  quantile crossings (tau = 0.1..0.9)   " + std::to_string(crossings) + " of " +
                  std::to_string((levels - 1) * samples * bins) + " neighbouring pairs\n";
  if (shape.counts) {
    const std::string error = format("%.6f", total_error / static_cast<double>(samples));
    const std::string cover = format("%.4f", static_cast<double>(total_covered) / static_cast<double>(samples));
    summary.csv += "total_log_error_median,," + error + "\ntotal_coverage_10_90,," + cover + "\n";
    summary.text += "  total count: |log median - log truth| " + error + ", 10-90% coverage " + cover + "\n";
  }
  return summary;
}

int run_train(int argc, char** argv) {
  cxxopts::Options parser("empl_fit train", "Train an EMPL network on features X [S, F] and histograms H [S, N]");
  std::vector<std::string> losses;
  for (const FitLoss& loss : fit_losses()) losses.push_back(loss.name);
  const CommonDefaults defaults{.steps = 4000, .batch = 512, .loss = "empl", .losses = losses, .out = "out/empl_fit"};
  add_common_options(parser, defaults);
  parser.add_options()
      ("features", "(or --x) features X [S, F]: .npy or CSV (header row optional, comma or whitespace separated)", cxxopts::value<std::string>())
      ("histograms", "(or --y) histograms H [S, N], one row per row of X, each summing to 1 (or see --normalise, --counts)", cxxopts::value<std::string>())
      ("hidden", "widths of the hidden layers", cxxopts::value<std::string>()->default_value("128,128"))
      ("lr", "learning rate at the start; it decays exponentially to a tenth over the run", cxxopts::value<float>()->default_value("0.001"))
      ("val-fraction", "fraction of the rows held out for validation (0: none)", cxxopts::value<double>()->default_value("0.1"))
      ("normalise", "divide each row of H by its sum instead of refusing rows that do not sum to 1")
      ("counts", "H holds raw counts: rows are normalised, and the total count is predicted as one more output");
  const auto parsed = parse_command_line(parser, argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", parser.help().c_str());
    return 0;
  }
  const CommonOptions options = read_common_options(parsed, defaults);
  if (!parsed.count("features")) fail("train: give --x, the features (see --help)");
  if (!parsed.count("histograms")) fail("train: give --y, the histograms (see --help)");
  const float lr = parsed["lr"].as<float>();
  if (!(lr > 0.0f && lr < 1.0f)) fail("--lr must be in (0, 1), got ", lr);
  const double val_fraction = parsed["val-fraction"].as<double>();
  if (!(val_fraction >= 0.0 && val_fraction < 1.0)) fail("--val-fraction must be in [0, 1), got ", val_fraction);
  if (parsed.count("normalise") && parsed.count("counts")) fail("--normalise and --counts: give one (--counts normalises too)");
  set_num_threads(options.threads);

  const MatrixFile x = read_matrix(parsed["features"].as<std::string>()), h = read_matrix(parsed["histograms"].as<std::string>());
  if (x.rows() != h.rows())
    fail(x.path, " has ", x.rows(), " rows and ", h.path, " has ", h.rows(), ": row i of one must go with row i of the other");
  const RowSums sums = parsed.count("counts") ? RowSums::counts : parsed.count("normalise") ? RowSums::normalise : RowSums::must_be_one;
  const HistogramTargets targets = prepare_histograms(h, sums, "give --normalise to divide each row by its sum, or --counts for raw counts");
  const ModelShape shape{x.cols(), h.cols(), parse_hidden(parsed["hidden"].as<std::string>()), sums == RowSums::counts};
  const RowSplit split = split_rows(x.rows(), val_fraction, options.seed);
  const Standardisation standardisation = fit_standardisation(x.values, split.train);
  const TotalScale total_scale = shape.counts ? fit_total_scale(targets.log_totals, split.train) : TotalScale{};
  const Tensor features = standardise(standardisation, x.values);
  const FitLoss& loss = fit_loss(options.loss);
  if (!options.save.empty()) check_save_path(options.save);
  OutputDirectory out(options.out);

  auto model = build_model(shape, options.seed);
  // A resumed run must be this run: same shapes, loss, data, split and steps.
  const std::map<std::string, std::string> identity = {
      {"app", "empl_fit"}, {"loss", options.loss}, {"features", std::to_string(shape.features)},
      {"bins", std::to_string(shape.bins)}, {"hidden", parsed["hidden"].as<std::string>()},
      {"counts", shape.counts ? "1" : "0"}, {"data", fingerprint(x.values, h.values)},
      {"split", format("%g", val_fraction) + "/" + std::to_string(options.seed)}, {"run_steps", std::to_string(options.steps)}};

  // An epoch is one pass's worth of batches over the training rows; its mean training loss and
  // the validation loss at its end go into the history, which checkpoints carry (the hook's state).
  const int64_t train_rows = static_cast<int64_t>(split.train.size());
  const int64_t steps_per_epoch = std::max<int64_t>(1, (train_rows + options.batch - 1) / options.batch);
  const int64_t epochs = (options.steps + steps_per_epoch - 1) / steps_per_epoch;
  Tensor history = Tensor::full({epochs, 2}, NAN, "loss history"), running = Tensor::zeros({2}, "epoch running loss");
  Tape validation_tape;
  float last_loss = 0.0f;
  StepHook hook{[&](int64_t step) {
                  running[0] += last_loss;
                  running[1] += 1.0f;
                  if ((step + 1) % steps_per_epoch != 0 && step + 1 != options.steps) return;
                  const int64_t epoch = step / steps_per_epoch;
                  history[epoch * 2] = running[0] / running[1];
                  history[epoch * 2 + 1] = split.validation.empty() ? NAN : static_cast<float>(validation_loss(
                      *model, loss, shape, features, targets, total_scale, split.validation, options.seed, validation_tape));
                  running[0] = running[1] = 0.0f;
                },
                {{"fit.history", history}, {"fit.running", running}}};

  Tensor inputs = Tensor::empty({options.batch, shape.features}), labels = Tensor::empty({options.batch, shape.bins});
  Tensor tau = Tensor::empty({options.batch, 1}), totals = Tensor::empty({options.batch, 1});
  const float fixed_tau = loss.uses_tau ? -1.0f : 0.5f;
  const TrainingResult result = train_or_load(*model, options, identity, {lr, 0.1f, options.steps}, [&](Tape& t, int64_t step) {
    fill_batch(features, targets, total_scale, split.train, options.seed, static_cast<uint64_t>(step), fixed_tau, inputs, labels, tau, totals);
    const Var output = model->forward(t, append_tau(t, Var(inputs), tau));
    const Var value = batch_loss(t, loss, shape, output, labels, tau, totals);
    last_loss = value.value.item();
    return value;
  }, hook);
  if (!options.load.empty()) {
    // --load (a checkpoint of --save) evaluates instead of training: its loss history comes with it.
    for (const NamedTensor& entry : load_checkpoint(options.load).tensors)
      if (entry.name == "fit.history" && entry.tensor.shape() == history.shape()) history.copy_from(entry.tensor);
  }

  std::string losses_csv = "epoch,steps,train_loss,validation_loss\n";
  for (int64_t e = 0; e < epochs; ++e) {
    char line[128];
    std::snprintf(line, sizeof line, "%lld,%lld,%.6f,%.6f\n", static_cast<long long>(e + 1),
                  static_cast<long long>(std::min(options.steps, (e + 1) * steps_per_epoch)), history[e * 2], history[e * 2 + 1]);
    losses_csv += line;
  }
  std::map<std::string, std::string> about = {{"x", x.path}, {"y", h.path}, {"steps", std::to_string(options.steps)},
                                              {"seed", std::to_string(options.seed)}};
  const std::string model_bytes = saved_model_bytes(*model, shape, options.loss, standardisation, total_scale, about);
  Summary summary;
  if (!split.validation.empty()) summary = validation_summary(*model, loss, shape, features, targets, total_scale, split.validation);

  std::printf("empl_fit train: %lld rows (%lld train, %lld validation), %lld features, %lld bins%s; loss %s, %lld steps of batch %lld",
              static_cast<long long>(x.rows()), static_cast<long long>(train_rows), static_cast<long long>(split.validation.size()),
              static_cast<long long>(shape.features), static_cast<long long>(shape.bins), shape.counts ? " + total count" : "",
              options.loss.c_str(), static_cast<long long>(options.steps), static_cast<long long>(options.batch));
  if (options.load.empty()) std::printf(", trained in %.1f s (final loss %.5f)", result.seconds, result.final_loss);
  std::printf("\n");
  std::vector<std::string> written = {out.write("model.ckpt", model_bytes), out.write("losses.csv", losses_csv)};
  if (!split.validation.empty()) {
    std::printf("validation (%lld rows):\n%s", static_cast<long long>(split.validation.size()), summary.text.c_str());
    written.push_back(out.write("validation.csv", summary.csv));
  }
  for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
  if (!options.save.empty() && options.load.empty()) std::printf("wrote %s\n", options.save.c_str());
  return 0;
}

// --- predict -------------------------------------------------------------------------------

std::vector<float> parse_taus(const std::string& text) {
  std::vector<float> taus;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string field = text.substr(start, end - start);
    char* stop = nullptr;
    const double tau = std::strtod(field.c_str(), &stop);
    if (field.empty() || *stop != '\0' || !(tau >= 0.0 && tau <= 1.0))
      fail("--tau: '", field, "' is not a quantile level in [0, 1] (give e.g. --tau 0.1,0.5,0.9)");
    taus.push_back(static_cast<float>(tau));
    start = end + 1;
  }
  if (taus.size() > 1000) fail("--tau: ", taus.size(), " levels, at most 1000");
  return taus;
}

// A few samples, each with bands between the levels paired from the outside in (lowest with
// highest, ...) and a line per level.
std::string prediction_figure(const QuantilePrediction& p, const std::vector<float>& taus) {
  const int shown = static_cast<int>(std::min<int64_t>(p.samples, 4));
  SvgFigure figure(1, shown, 320, 260);
  figure.set_title("empl_fit predict: quantiles of the cumulative histogram, first " + std::to_string(shown) + " samples");
  std::vector<int64_t> order(taus.size());
  for (size_t t = 0; t < order.size(); ++t) order[t] = static_cast<int64_t>(t);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return taus[static_cast<size_t>(a)] < taus[static_cast<size_t>(b)]; });
  std::vector<double> bins;
  for (int64_t j = 0; j < p.bins; ++j) bins.push_back(static_cast<double>(j));
  for (int s = 0; s < shown; ++s) {
    Axes& axes = figure.axes(0, s);
    axes.set_title("sample " + std::to_string(s));
    axes.set_xlabel("bin");
    axes.set_ylabel("cumulative");
    axes.set_ylim(-0.02, 1.02);
    const auto curve = [&](int64_t t) {
      std::vector<double> values(static_cast<size_t>(p.bins));
      for (int64_t j = 0; j < p.bins; ++j) values[static_cast<size_t>(j)] = p.at(s, t, j);
      return values;
    };
    for (size_t k = 0; k < order.size() / 2; ++k)
      axes.band(bins, curve(order[k]), curve(order[order.size() - 1 - k]),
                {.color = colormap(0.2 + 0.6 * static_cast<double>(k) / std::max<size_t>(1, order.size() / 2)), .opacity = 0.3});
    for (const int64_t t : order)
      axes.line(bins, curve(t), {.color = colormap(taus[static_cast<size_t>(t)]), .width = 1.2,
                                 .label = s == 0 ? format("tau = %g", taus[static_cast<size_t>(t)]) : ""});
  }
  return figure.render();
}

int run_predict(int argc, char** argv) {
  cxxopts::Options parser("empl_fit predict", "Quantiles of the cumulative histogram for new features, from a model of empl_fit train");
  parser.add_options()
      ("h,help", "show this help and exit")
      ("model", "the --out folder of empl_fit train (or its model.ckpt)", cxxopts::value<std::string>())
      ("features", "(or --x) features X [S, F], as for training", cxxopts::value<std::string>())
      ("tau", "quantile levels, in the order the outputs keep", cxxopts::value<std::string>()->default_value("0.1,0.5,0.9"))
      ("out", "output directory", cxxopts::value<std::string>()->default_value("out/empl_fit_predict"))
      ("figure", "also write figure.svg: the first samples with their quantile bands")
      ("threads", "threads (0: all cores)", cxxopts::value<int>()->default_value("0"));
  const auto parsed = parse_command_line(parser, argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", parser.help().c_str());
    return 0;
  }
  if (!parsed.unmatched().empty()) fail("predict: unexpected argument '", parsed.unmatched().front(), "'");
  if (!parsed.count("model")) fail("predict: give --model, the --out folder of empl_fit train (see --help)");
  if (!parsed.count("features")) fail("predict: give --x, the features (see --help)");
  const int threads = parsed["threads"].as<int>();
  if (threads < 0 || threads > 1024) fail("--threads must be between 0 (all cores) and 1024, got ", threads);
  set_num_threads(threads);
  const std::vector<float> taus = parse_taus(parsed["tau"].as<std::string>());
  SavedModel model = load_saved_model(parsed["model"].as<std::string>());
  const MatrixFile x = read_matrix(parsed["features"].as<std::string>());
  if (x.cols() != model.shape.features)
    fail(x.path, ": ", x.cols(), " columns, but the model ", parsed["model"].as<std::string>(), " was trained on ",
         model.shape.features, " features");
  OutputDirectory out(parsed["out"].as<std::string>());

  const bool uses_tau = fit_loss(model.loss).uses_tau;
  const QuantilePrediction p = evaluate_in_chunks(
      *model.network, standardise(model.features, x.values), taus,
      {.head = model.shape.counts ? QuantileHead::density_with_total : QuantileHead::density, .feed_tau = uses_tau});
  const int64_t samples = p.samples, levels = p.levels, bins = p.bins;
  Tensor cumulative = Tensor::empty({samples, levels, bins}), density = Tensor::empty({samples, levels, bins});
  std::string csv = "sample,tau,bin,cumulative,density\n";
  char line[128];
  for (int64_t s = 0; s < samples; ++s)
    for (int64_t t = 0; t < levels; ++t)
      for (int64_t j = 0; j < bins; ++j) {
        const int64_t i = (s * levels + t) * bins + j;
        cumulative[i] = static_cast<float>(p.at(s, t, j));
        density[i] = static_cast<float>(p.at(s, t, j) - (j > 0 ? p.at(s, t, j - 1) : 0.0));
        std::snprintf(line, sizeof line, "%lld,%g,%lld,%.7g,%.7g\n", static_cast<long long>(s), taus[static_cast<size_t>(t)],
                      static_cast<long long>(j), cumulative[i], density[i]);
        csv += line;
      }
  std::vector<std::string> written = {out.write("cumulative.npy", npy_bytes(cumulative)), out.write("density.npy", npy_bytes(density)),
                                      out.write("predictions.csv", csv)};
  if (model.shape.counts) {
    // The network's last output is the standardised log total at τ: undo both.
    Tensor totals = Tensor::empty({samples, levels});
    std::string totals_csv = "sample,tau,total\n";
    for (int64_t i = 0; i < samples * levels; ++i) {
      totals[i] = static_cast<float>(std::exp(p.totals[static_cast<size_t>(i)] * model.total.scale + model.total.mean));
      std::snprintf(line, sizeof line, "%lld,%g,%.7g\n", static_cast<long long>(i / levels), taus[static_cast<size_t>(i % levels)], totals[i]);
      totals_csv += line;
    }
    written.push_back(out.write("totals.npy", npy_bytes(totals)));
    written.push_back(out.write("totals.csv", totals_csv));
  }
  if (parsed.count("figure")) written.push_back(out.write("figure.svg", prediction_figure(p, taus)));
  std::printf("empl_fit predict: %lld samples x %lld levels x %lld bins%s\n", static_cast<long long>(samples),
              static_cast<long long>(levels), static_cast<long long>(bins), uses_tau ? "" : " (a model trained without tau: one curve for every level)");
  for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
  return 0;
}

// --- example -------------------------------------------------------------------------------

int run_example(int argc, char** argv) {
  cxxopts::Options parser("empl_fit example", "Write the toy urn (paper section 3.1) as files, with its analytic quantiles");
  parser.add_options()
      ("h,help", "show this help and exit")
      ("out", "output directory", cxxopts::value<std::string>()->default_value("out/urn"))
      ("rows", "rows of x.csv and h.csv", cxxopts::value<int64_t>()->default_value("20000"))
      ("seed", "random seed", cxxopts::value<uint64_t>()->default_value("1"))
      ("counts", "h.csv holds raw counts (train with --counts) instead of fractions");
  const auto parsed = parse_command_line(parser, argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", parser.help().c_str());
    return 0;
  }
  if (!parsed.unmatched().empty()) fail("example: unexpected argument '", parsed.unmatched().front(), "'");
  const int64_t rows = parsed["rows"].as<int64_t>();
  if (rows < 1 || rows > 10'000'000) fail("--rows must be between 1 and 10000000, got ", rows);
  OutputDirectory out(parsed["out"].as<std::string>());
  const ExampleFiles files = make_example(rows, parsed["seed"].as<uint64_t>(), parsed.count("counts") > 0);
  for (const auto& [name, bytes] : {std::pair{"x.csv", &files.x}, {"h.csv", &files.h}, {"query.csv", &files.query}, {"analytic.csv", &files.analytic}})
    std::printf("wrote %s\n", out.write(name, *bytes).c_str());
  return 0;
}

// cxxopts takes no long option of one letter ("--x" is a syntax error to it): --x and --y are
// spelt --features and --histograms for it, and both spellings work.
int with_long_names(int argc, char** argv, int (*command)(int, char**)) {
  std::vector<std::string> arguments(argv, argv + argc);
  for (std::string& argument : arguments)
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"--x", "--features"}, {"--y", "--histograms"}})
      if (argument == from || argument.rfind(from + "=", 0) == 0) argument = to + argument.substr(from.size());
  std::vector<char*> pointers;
  for (std::string& argument : arguments) pointers.push_back(argument.data());
  pointers.push_back(nullptr);
  return command(argc, pointers.data());
}

int run(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  // The command's own parser sees "empl_fit <command>" as its program name.
  if (command == "train") return with_long_names(argc - 1, argv + 1, run_train);
  if (command == "predict") return with_long_names(argc - 1, argv + 1, run_predict);
  if (command == "example") return run_example(argc - 1, argv + 1);
  if (command == "-h" || command == "--help") {
    std::printf("empl_fit: EMPL quantile networks on your own histograms\n"
                "  empl_fit train --x X --y H --out DIR [...]     train (empl_fit train --help)\n"
                "  empl_fit predict --model DIR --x X --out DIR    quantiles for new features\n"
                "  empl_fit example --out DIR                      the toy urn as files\n");
    return 0;
  }
  fail(command.empty() ? "give a command: train, predict or example (see --help)"
                       : "unknown command '" + command + "' (train, predict or example; see --help)");
}

}  // namespace

int main(int argc, char** argv) { return run_app("empl_fit", argc, argv, run); }
