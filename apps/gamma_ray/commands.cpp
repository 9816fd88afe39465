// The train / evaluate / table / figure subcommands (read commands.hpp, then experiment.hpp).
// Flags follow the other apps (apps/common/app_options.hpp); --steps and --batch default to the
// preset's. The dataset cache is --data, by default OUT/dataset_<preset>.bin.
#include "apps/gamma_ray/commands.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include <cxxopts.hpp>

#include "apps/common/app_options.hpp"
#include "apps/common/train_or_load.hpp"
#include "apps/gamma_ray/experiment.hpp"
#include "apps/gamma_ray/figure.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "io/atomic_file.hpp"
#include "losses/metrics.hpp"

namespace empl::gamma_ray {
namespace {

// The paper's Table 1 as printed: MAE ×1000, MSE ×1000, EM1 ×100, EM2 ×100, IS %.
struct PaperRow {
  const char* loss;
  double mae, mse, em1, em2, is;
};
constexpr PaperRow kPaperTable[] = {{"mae", 4.1, 8.6, 10.8, 4.6, 95.7},  {"mse", 4.0, 8.1, 10.3, 4.2, 95.8},
                                    {"xe", 4.2, 8.6, 9.4, 4.2, 95.6},    {"empl", 4.0, 8.3, 8.8, 3.9, 95.8},
                                    {"sempl", 4.0, 8.2, 9.0, 3.9, 95.8}, {"em1", 3.9, 8.2, 8.7, 3.9, 95.9}};

struct Run {
  Preset preset;
  CommonOptions options;
  DatasetSpec spec;
  std::string data_path;
  int64_t test_maps = 512;
  float learning_rate = kLearningRate;
  AverageFlags averaging;
};

void add_run_options(cxxopts::Options& parser, const char* default_loss) {
  const Preset small = preset("small");
  add_common_options(parser, {.steps = small.steps, .batch = small.batch, .loss = default_loss,
                              .losses = {std::begin(kLosses), std::end(kLosses)}, .out = "out/gamma_ray", .seed = 1});
  parser.add_options()("preset", "small (default: the method at nside 128, 7 blocks) or paper (nside 256, 8 blocks)",
                       cxxopts::value<std::string>()->default_value("small"))
      ("data", "dataset cache file (default OUT/dataset_<preset>.bin)", cxxopts::value<std::string>())
      ("simulated", "maps simulated before the cuts (default: the preset's)", cxxopts::value<int64_t>())
      ("roi-deg", "radius of the region of interest, degrees, in (0, 25]", cxxopts::value<double>()->default_value("20"))
      ("test-maps", "test maps to evaluate on (the first of the held-out 1/15)", cxxopts::value<int64_t>()->default_value("512"))
      ("learning-rate", "Adam's learning rate at step 0, decaying as lr·exp(-2.5e-4·step) (default: the paper's 5e-4)",
       cxxopts::value<float>())
      ("average-decay", "evaluate with an exponential moving average of the weights of this decay, the batch norms measured "
       "again with it (0: off, the paper)", cxxopts::value<float>()->default_value("0"))
      ("average-steps", "the average runs over the last this many steps (at most the run's second half)",
       cxxopts::value<int64_t>()->default_value("1000"));
}

// A checkpoint to read must exist before the dataset is simulated (minutes), not after.
void check_loadable(const std::string& path, const char* flag) {
  std::error_code error;
  if (!path.empty() && !std::filesystem::is_regular_file(path, error)) fail(flag, " ", path, ": no such checkpoint file");
}

Run read_run(const cxxopts::ParseResult& parsed) {
  Run run;
  run.preset = preset(parsed["preset"].as<std::string>());
  const Preset small = preset("small");
  run.options = read_common_options(parsed, {.steps = small.steps, .batch = small.batch,
                                             .losses = {std::begin(kLosses), std::end(kLosses)}});
  if (!parsed.count("steps")) run.options.steps = run.preset.steps;
  if (!parsed.count("batch")) run.options.batch = run.preset.batch;
  run.spec.nside = run.preset.nside;
  run.spec.roi_deg = parsed["roi-deg"].as<double>();
  if (!(run.spec.roi_deg > 0.0 && run.spec.roi_deg <= 25.0)) fail("--roi-deg: ", run.spec.roi_deg, " is outside (0, 25]");
  run.spec.seed = run.options.seed;
  run.spec.simulated = parsed.count("simulated") ? parsed["simulated"].as<int64_t>() : run.preset.simulated;
  if (run.spec.simulated < 15 || run.spec.simulated > 100000000) fail("--simulated: ", run.spec.simulated, " is outside [15, 100000000]");
  run.test_maps = parsed["test-maps"].as<int64_t>();
  if (run.test_maps < 1 || run.test_maps > 1000000) fail("--test-maps: ", run.test_maps, " is outside [1, 1000000]");
  if (parsed.count("learning-rate")) run.learning_rate = parsed["learning-rate"].as<float>();  // else the paper's
  if (!(run.learning_rate > 0.0f && run.learning_rate <= 1.0f)) fail("--learning-rate: ", run.learning_rate, " is outside (0, 1]");
  run.averaging = read_average_flags(parsed);
  run.data_path = parsed.count("data") ? parsed["data"].as<std::string>()
                                       : (std::filesystem::path(run.options.out) / ("dataset_" + run.preset.name + ".bin")).string();
  if (run.data_path.empty()) fail("--data: the cache path must not be empty");
  check_loadable(run.options.load, "--load");
  check_loadable(run.options.resume, "--resume");
  set_num_threads(run.options.threads);
  return run;
}

NetworkConfig network_config(const Preset& p) { return {.nside = p.nside, .features = p.features, .dense = p.dense}; }

// What a checkpoint must carry to be loaded or resumed by this run.
std::map<std::string, std::string> identity(const Run& run, const std::string& loss) {
  std::ostringstream spec;
  spec << run.spec.roi_deg << "/" << run.spec.simulated << "/" << run.options.batch;
  // And how it was trained: a table run with another learning rate or average refuses the
  // networks of an earlier one instead of mixing them in.
  std::ostringstream training;
  training << run.learning_rate << "/" << run.averaging.decay << "/" << run.averaging.steps;
  return {{"app", "gamma_ray"}, {"preset", run.preset.name}, {"loss", loss}, {"data", spec.str()}, {"training", training.str()}};
}

Dataset load_data(const Run& run) {
  // The cache's folder is made here (it is often OUT, which OutputDirectory makes only on its first write).
  const std::filesystem::path folder = std::filesystem::path(run.data_path).parent_path();
  std::error_code ignored;
  if (!folder.empty()) std::filesystem::create_directories(folder, ignored);
  const auto start = std::chrono::steady_clock::now();
  bool simulated = false;
  Dataset d = load_or_simulate(run.data_path, run.spec, run.options.quiet, &simulated);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!run.options.quiet)
    std::printf("dataset: %lld maps passed the cuts of %lld simulated (%lld train, %lld test), nside %lld, %s in %.1f s (%s)\n",
                static_cast<long long>(d.maps), static_cast<long long>(run.spec.simulated), static_cast<long long>(d.train_count()),
                static_cast<long long>(d.test_count()), static_cast<long long>(run.spec.nside),
                simulated ? "simulated" : "read from the cache", seconds, run.data_path.c_str());
  std::fflush(stdout);  // seen now by whoever follows a redirected log, before the long training
  if (d.train_count() < 1 || d.test_count() < 1)
    fail("dataset: ", d.maps, " maps passed the cuts, too few for a training and a test split (raise --simulated)");
  return d;
}

std::vector<int64_t> test_rows(const Dataset& d, int64_t wanted) {
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < std::min(wanted, d.test_count()); ++i) rows.push_back(d.test_begin() + i);
  return rows;
}

// With a weight average (trained by this run, or in the checkpoint `options.load` names): the
// model takes the averaged weights, and its batch norms are measured again with them.
void use_average(GammaNetwork& model, WeightAverage& average, const Dataset& data, const CommonOptions& options) {
  evaluate_with_average(average, options);
  if (average.count() > 0) measure_batch_norm(model, data, options.seed, options.batch, kNormBatches);
}

// Loads the checkpoint --load names into `model`, with the weights' average when it carries one
// (evaluate and figure); returns its metadata.
std::map<std::string, std::string> load_network(GammaNetwork& model, const Dataset& data, const Run& run) {
  auto metadata = load_model(run.options.load, model, {{"app", "gamma_ray"}, {"preset", run.preset.name}});
  WeightAverage average(model, 0.0f);  // filled from the checkpoint (its decay acts only in training)
  use_average(model, average, data, run.options);
  return metadata;
}

// Trains (or, with --load, loads) the network of `loss`, with the weights' average if asked.
TrainingResult train_network(GammaNetwork& model, const Dataset& data, const Run& run, const CommonOptions& options,
                             const std::string& loss) {
  const bool quantile = is_quantile_loss(loss);
  std::vector<int64_t> rows;
  std::vector<float> taus;
  Tensor maps, scalars, labels, tau = Tensor::empty({options.batch, 1}, "tau");
  const ExponentialDecay schedule{run.learning_rate, static_cast<float>(std::exp(-kDecayPerStep)), 1};
  WeightAverage average(model, run.averaging.decay);
  const TrainingResult result = train_or_load(model, options, identity(run, loss), schedule, [&](Tape& tape, int64_t step) {
    draw_batch(data, options.seed, step, options.batch, quantile, rows, taus);
    fill_batch(data, rows, taus, maps, scalars, &labels);
    for (int64_t b = 0; b < options.batch; ++b) tau[b] = taus[static_cast<size_t>(b)];
    const Var q = model.forward(tape, maps, scalars);
    return training_loss(tape, loss, q, labels, tau);
  }, average_hook(average, run.averaging, options.steps));
  use_average(model, average, data, options);
  return result;
}

// Row i of `values` [n, T, bins] at level t as an [n, bins] tensor (cumulative when asked).
Tensor level_of(const std::vector<float>& values, int64_t n, int64_t levels, int64_t t, int64_t bins, bool cumulative) {
  Tensor out = Tensor::empty({n, bins}, "level");
  for (int64_t i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int64_t j = 0; j < bins; ++j) {
      const float v = values[static_cast<size_t>((i * levels + t) * bins + j)];
      out[i * bins + j] = cumulative ? (acc += v) : v;
    }
  }
  return out;
}

struct Evaluation {
  Metrics metrics;
  AltMetrics alt;
  // EMPL networks only:
  std::vector<double> calibration;  // per bin: fraction of test maps with Q inside [Q̃_0.1, Q̃_0.9] ± half a photon
  int64_t crossings = -1;           // over τ = 0.05 … 0.95
  int64_t crossing_checks = 0;
};

Evaluation evaluate_network(GammaNetwork& model, const Dataset& data, const std::vector<int64_t>& rows, bool quantile) {
  Evaluation e;
  const int64_t n = static_cast<int64_t>(rows.size()), bins = data.bins;
  const Tensor truth = labels_of(data, rows);
  const std::vector<float> median_tau = {0.5f};
  const Tensor median = level_of(predict(model, data, rows, median_tau), n, 1, 0, bins, false);
  e.metrics = table_metrics(median, truth);
  e.alt = alt_metrics(median, truth);
  if (!quantile) return e;
  std::vector<float> taus;
  for (int k = 1; k <= 19; ++k) taus.push_back(0.05f * static_cast<float>(k));
  const std::vector<float> values = predict(model, data, rows, taus);
  std::vector<Tensor> levels;
  for (int64_t t = 0; t < 19; ++t) levels.push_back(level_of(values, n, 19, t, bins, true));
  e.crossings = quantile_crossings(levels);
  e.crossing_checks = 18 * n * bins;
  const Tensor& low = levels[1];    // τ = 0.10
  const Tensor& high = levels[17];  // τ = 0.90
  std::vector<double> totals;
  for (const int64_t r : rows) totals.push_back(data.totals[static_cast<size_t>(r)]);
  e.calibration = band_coverage(low, high, truth, totals);
  return e;
}

void print_quantile_report(const std::string& loss, const Evaluation& e, int64_t n) {
  if (e.crossings < 0) return;
  std::printf("%s network, %lld test maps: fraction of true cumulative histograms inside the predicted 10-90%% band, per bin (ideal 0.80):\n ",
              loss.c_str(), static_cast<long long>(n));
  double sum = 0.0;
  for (size_t j = 0; j < e.calibration.size(); ++j) {
    std::printf(" %.2f", e.calibration[j]);
    if (j + 1 < e.calibration.size()) sum += e.calibration[j];
  }
  std::printf("\n  mean over bins 1-20: %.3f (bin 21 is the cumulative total, 1 for every map)\n",
              sum / static_cast<double>(e.calibration.size() - 1));
  std::printf("  quantile crossings over tau = 0.05, 0.10, ..., 0.95: %lld of %lld adjacent pairs\n",
              static_cast<long long>(e.crossings), static_cast<long long>(e.crossing_checks));
}

void print_metrics_line(const char* name, const Metrics& m) {
  std::printf("%-6s %8.2f %8.3f %8.2f %8.2f %8.2f", name, 1000 * m.mae, 1000 * m.mse, 100 * m.em1, 100 * m.em2, 100 * m.intersection);
}

int help_or_continue(cxxopts::Options& parser, const cxxopts::ParseResult& parsed) {
  if (!parsed.count("help")) return -1;
  std::printf("%s\n", parser.help().c_str());
  return 0;
}

}  // namespace

int run_train(int argc, char** argv) {
  cxxopts::Options parser("gamma_ray train", "Trains one network of the gamma-ray example and evaluates it on the test maps");
  add_run_options(parser, "empl");
  const auto parsed = parse_command_line(parser, argc, argv);
  if (const int done = help_or_continue(parser, parsed); done >= 0) return done;
  const Run run = read_run(parsed);
  OutputDirectory out(run.options.out);  // checked before the work
  const Dataset data = load_data(run);
  GammaNetwork model(network_config(run.preset), run.options.seed);
  const TrainingResult result = train_network(model, data, run, run.options, run.options.loss);
  const std::vector<int64_t> rows = test_rows(data, run.test_maps);
  const Evaluation e = evaluate_network(model, data, rows, is_quantile_loss(run.options.loss));
  std::printf("gamma_ray train: preset %s, loss %s, %lld parameters", run.preset.name.c_str(), run.options.loss.c_str(),
              static_cast<long long>(model.parameter_count()));
  if (result.steps_done > 0)
    std::printf(", %lld steps of batch %lld in %.1f s (%.3f s/step, final loss %.5f)", static_cast<long long>(result.steps_done),
                static_cast<long long>(run.options.batch), result.seconds, result.seconds / static_cast<double>(result.steps_done),
                result.final_loss);
  std::printf("\n         MAE e-3  MSE e-3  EM1 e-2  EM2 e-2    IS %%  (%zu test maps, tau = 0.5)\n", rows.size());
  print_metrics_line(run.options.loss.c_str(), e.metrics);
  std::printf("\n");
  print_quantile_report(run.options.loss, e, static_cast<int64_t>(rows.size()));
  return 0;
}

int run_evaluate(int argc, char** argv) {
  cxxopts::Options parser("gamma_ray evaluate", "Evaluates a trained network (--load) on the test maps");
  add_run_options(parser, "empl");
  const auto parsed = parse_command_line(parser, argc, argv);
  if (const int done = help_or_continue(parser, parsed); done >= 0) return done;
  Run run = read_run(parsed);
  if (run.options.load.empty()) fail("evaluate: --load CKPT is required (a checkpoint written by train --save or table)");
  const Dataset data = load_data(run);
  GammaNetwork model(network_config(run.preset), run.options.seed);
  const auto metadata = load_network(model, data, run);
  const std::string loss = metadata.count("loss") ? metadata.at("loss") : run.options.loss;
  const std::vector<int64_t> rows = test_rows(data, run.test_maps);
  const Evaluation e = evaluate_network(model, data, rows, is_quantile_loss(loss));
  std::printf("gamma_ray evaluate: %s (loss %s, preset %s)\n         MAE e-3  MSE e-3  EM1 e-2  EM2 e-2    IS %%  (%zu test maps, tau = 0.5)\n",
              run.options.load.c_str(), loss.c_str(), run.preset.name.c_str(), rows.size());
  print_metrics_line(loss.c_str(), e.metrics);
  std::printf("\n");
  print_quantile_report(loss, e, static_cast<int64_t>(rows.size()));
  return 0;
}

int run_table(int argc, char** argv) {
  cxxopts::Options parser("gamma_ray table",
                          "Trains (or loads) one network per loss and writes the paper's Table 1: OUT/table1.md, table1.csv");
  add_run_options(parser, "empl");
  const auto parsed = parse_command_line(parser, argc, argv);
  if (const int done = help_or_continue(parser, parsed); done >= 0) return done;
  const Run run = read_run(parsed);
  if (!run.options.load.empty() || !run.options.save.empty() || !run.options.resume.empty())
    fail("table: --load/--save/--resume name one checkpoint; the table keeps one per loss in OUT/checkpoints (rerun to resume or reuse them)");
  const auto start = std::chrono::steady_clock::now();
  OutputDirectory out(run.options.out);
  const Dataset data = load_data(run);
  const std::filesystem::path checkpoints = std::filesystem::path(run.options.out) / "checkpoints";
  std::filesystem::create_directories(checkpoints);
  const std::vector<int64_t> rows = test_rows(data, run.test_maps);
  std::map<std::string, Evaluation> results;
  std::map<std::string, double> seconds;
  for (const char* loss : kLosses) {
    CommonOptions options = run.options;
    options.loss = loss;
    options.save = (checkpoints / (std::string(loss) + ".ckpt")).string();
    // A checkpoint of this loss continues (a finished one is only loaded): the table is resumable.
    if (std::filesystem::exists(options.save)) options.resume = options.save;
    if (!run.options.quiet) std::printf("[%s] %s\n", loss, options.resume.empty() ? "training" : "resuming/loading");
    std::fflush(stdout);
    GammaNetwork model(network_config(run.preset), run.options.seed);
    const TrainingResult trained = train_network(model, data, run, options, loss);
    seconds[loss] = trained.steps_done > 0 ? trained.seconds : -1.0;  // -1: loaded, trained by an earlier run
    results[loss] = evaluate_network(model, data, rows, is_quantile_loss(loss));
  }
  std::ostringstream csv, md, alt;
  csv << "loss,mae,mse,em1,em2,intersection\n";
  alt << "loss,rmse,sse,em1_sum,em2_norm,em2_sum\n";
  md << "# Table 1, gamma-ray example (preset " << run.preset.name << ", " << rows.size() << " test maps, tau = 0.5)\n\n"
     << "MAE, MSE ×1000; EM1, EM2 ×100; IS in %. Ours | paper.\n\n"
     << "| loss | MAE | MSE | EM1 | EM2 | IS | paper MAE | paper MSE | paper EM1 | paper EM2 | paper IS |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  char line[400];
  std::printf("\nTable 1 (preset %s, %zu test maps, tau = 0.5): ours | paper\n", run.preset.name.c_str(), rows.size());
  std::printf("loss    MAE e-3  MSE e-3  EM1 e-2  EM2 e-2    IS %%  |  MAE   MSE   EM1   EM2    IS\n");
  for (const PaperRow& p : kPaperTable) {
    const Metrics& m = results.at(p.loss).metrics;
    const AltMetrics& a = results.at(p.loss).alt;
    std::snprintf(line, sizeof line, "%s,%.9g,%.9g,%.9g,%.9g,%.9g\n", p.loss, m.mae, m.mse, m.em1, m.em2, m.intersection);
    csv << line;
    std::snprintf(line, sizeof line, "%s,%.9g,%.9g,%.9g,%.9g,%.9g\n", p.loss, a.rmse, a.sse, a.em1_sum, a.em2_norm, a.em2_sum);
    alt << line;
    std::snprintf(line, sizeof line, "| %s | %.2f | %.3f | %.2f | %.2f | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", p.loss,
                  1000 * m.mae, 1000 * m.mse, 100 * m.em1, 100 * m.em2, 100 * m.intersection, p.mae, p.mse, p.em1, p.em2, p.is);
    md << line;
    print_metrics_line(p.loss, m);
    std::printf("  | %4.1f  %4.1f  %4.1f  %4.1f  %4.1f\n", p.mae, p.mse, p.em1, p.em2, p.is);
  }
  // The reading of the paper's columns (experiment.hpp): its ratios against ours under each.
  std::printf("\nReading the paper's columns (ratios; paper MSE/MAE = 2.1, EM1/MAE = 25, EM2/EM1 = 0.45 on average):\n");
  std::printf("loss    mse/mae  rmse/mae  sse/mae | em1/mae  em1_sum/mae | em2/em1  em2_norm/em1_sum  sqrt(em2_sum)/em1_sum\n");
  for (const PaperRow& p : kPaperTable) {
    const Metrics& m = results.at(p.loss).metrics;
    const AltMetrics& a = results.at(p.loss).alt;
    std::printf("%-6s %8.3f %9.2f %8.2f | %7.2f %12.1f | %7.2f %17.2f %22.2f\n", p.loss, m.mse / m.mae, a.rmse / m.mae, a.sse / m.mae,
                m.em1 / m.mae, a.em1_sum / m.mae, m.em2 / m.em1, a.em2_norm / a.em1_sum, std::sqrt(a.em2_sum) / a.em1_sum);
  }
  md << "\nDefinitions (mean over test maps b and bins j; q densities, Q cumulative): MAE = mean |q̃−q|, "
        "MSE = mean (q̃−q)², EM1 = mean |Q̃−Q|, EM2 = sqrt(mean (Q̃−Q)²), IS = mean_b Σ_j min(q̃, q).\n";
  const Evaluation& e = results.at("empl");
  if (e.crossings >= 0) {
    md << "\nEMPL network: fraction of true cumulative histograms inside the 10–90% band, bins 1–21: ";
    for (const double c : e.calibration) {
      std::snprintf(line, sizeof line, "%.2f ", c);
      md << line;
    }
    md << "\nQuantile crossings over τ = 0.05…0.95: " << e.crossings << " of " << e.crossing_checks << " adjacent pairs.\n";
  }
  const auto training_time = [&](const char* loss) {
    return seconds[loss] < 0 ? std::string("loaded") : std::to_string(std::lround(seconds[loss])) + " s";
  };
  md << "\nTraining time (this run):";
  for (const char* loss : kLosses) md << " " << loss << " " << training_time(loss) << ";";
  md << "\n";
  std::printf("\n");
  print_quantile_report("empl", e, static_cast<int64_t>(rows.size()));
  const std::string written[] = {out.write("table1.csv", csv.str()), out.write("table1.md", md.str()),
                                 out.write("table1_alternative_metrics.csv", alt.str())};
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("training time (this run):");
  for (const char* loss : kLosses) std::printf(" %s %s", loss, training_time(loss).c_str());
  std::printf("\ntable done in %.0f s\n", total);
  for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
  return 0;
}

int run_figure(int argc, char** argv) {
  cxxopts::Options parser("gamma_ray figure", "Fig. 4: three test maps and their predicted histograms → OUT/fig4_gamma_ray.svg");
  add_run_options(parser, "empl");
  const auto parsed = parse_command_line(parser, argc, argv);
  if (const int done = help_or_continue(parser, parsed); done >= 0) return done;
  Run run = read_run(parsed);
  if (run.options.load.empty()) run.options.load = (std::filesystem::path(run.options.out) / "checkpoints" / "empl.ckpt").string();
  check_loadable(run.options.load, "--load (default OUT/checkpoints/empl.ckpt, written by table)");
  OutputDirectory out(run.options.out);
  const Dataset data = load_data(run);
  GammaNetwork model(network_config(run.preset), run.options.seed);
  const auto metadata = load_network(model, data, run);
  const std::string loss = metadata.count("loss") ? metadata.at("loss") : "empl";
  const std::vector<int64_t> rows = test_rows(data, run.test_maps);
  const std::string svg = figure_svg(model, data, rows, loss, is_quantile_loss(loss));
  std::printf("wrote %s\n", out.write("fig4_gamma_ray.svg", svg).c_str());
  return 0;
}

}  // namespace empl::gamma_ray
