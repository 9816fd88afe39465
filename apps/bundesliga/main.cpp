// bundesliga: the paper's football example (section 3.2, Fig. 3). From the real results of
// 1995-96 to 2017-18, learn the distribution of a club's league-table positions over a season
// from its 34 results alone, with the EMPL (or the Gaussian baseline), and compare with a
// bootstrap reference.
//
//   bundesliga [--data CSV] [--loss empl|gauss] [--steps 43750] [--replays 1000] [--out DIR]
//   bundesliga table --season 1997-98 [--week 34] [--data CSV]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include "apps/bundesliga/league.hpp"
#include "apps/bundesliga/replays.hpp"
#include "apps/bundesliga/results_csv.hpp"
#include "apps/common/app_options.hpp"
#include "apps/common/run_app.hpp"
#include "apps/common/train_or_load.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "core/rowwise.hpp"
#include "io/atomic_file.hpp"
#include "io/svg_plot.hpp"
#include "layers/tau_input.hpp"
#include "training/quantiles.hpp"
#include "losses/empl.hpp"
#include "losses/gaussian_nll.hpp"

using namespace empl;
using namespace empl::bundesliga;

namespace {

const char* const kDefaultData = "../shared/data/bundesliga/Bundesliga_Results.csv";
const char* const kTestSeasons[] = {"1998-99", "2006-07", "2014-15"};
constexpr int kBatchesPerEpoch = 360000 / 2048;  // 175 full batches of the paper's data per epoch
constexpr float kAlpha = 0.005f;                  // the paper's smoothing

// The seasons 1995-96 to 2017-18 of the results file. Its rejected rows are reported first (they
// may be why a season is incomplete); an error about a season names the file, which
// build_seasons does not know.
std::map<std::string, Season> load_seasons(const cxxopts::ParseResult& parsed) {
  std::string path = parsed.count("data") ? parsed["data"].as<std::string>() : kDefaultData;
  if (!parsed.count("data") && !std::filesystem::exists(path))
    fail("no results file: pass --data PATH to a copy of the Bundesliga results CSV (Kaggle, \"bundesliga-results-19932018\""
         " by thefc17; this repository expects it at ", kDefaultData, ")");
  const ResultsFile file = read_results(path);
  if (!file.skipped.empty()) std::fprintf(stderr, "%s: %s\n", path.c_str(), skipped_report(file).c_str());
  try {
    return build_seasons(file, "1995-96", "2017-18");
  } catch (const Error& error) {
    fail(path, ": ", error.what());
  }
}

int run_table(const cxxopts::ParseResult& parsed) {
  // read_common_options, which refuses these for training, is not called for a table.
  if (!parsed.unmatched().empty()) fail("table: unexpected argument '", parsed.unmatched().front(), "'");
  if (!parsed.count("season")) fail("table: give --season, e.g. --season 1997-98");
  const std::string label = parsed["season"].as<std::string>();
  const int week = parsed["week"].as<int>();
  // Checked before the file is read, so that a bad flag is the one line on stderr (not after the
  // report of the file's rejected rows); table_after checks it again.
  if (week < 1 || week > kWeeks) fail("table: --week ", week, " is outside 1..", kWeeks);
  const auto seasons = load_seasons(parsed);
  const auto found = seasons.find(label);
  if (found == seasons.end()) fail("table: --season ", label, " is not in the data (it has 1995-96 to 2017-18)");
  const Season& season = found->second;
  std::printf("%s after week %d\n pos  club                   pts  goals  diff\n", label.c_str(), week);
  int position = 1;
  for (const TableRow& row : table_after(season, week)) {
    std::printf(" %3d  %-20s  %4d  %2d:%-2d  %+4d\n", position++, season.clubs[row.club].c_str(), row.points, row.goals_for,
                row.goals_against, row.goals_for - row.goals_against);
  }
  return 0;
}

struct TestClub {
  const Season* season;
  int club;
  std::array<float, kClubs> truth;               // density histogram
  std::array<std::array<double, kClubs>, 9> predicted;  // cumulative quantiles at τ = 0.1..0.9
  std::vector<std::array<double, kClubs>> bootstrap;
  int final_position = 0;
};

std::string figure_svg(const std::vector<const TestClub*>& shown) {
  SvgFigure figure(static_cast<int>(shown.size()), 2, 420, 250);
  figure.set_title("Bundesliga: cumulative histograms of table positions (truth, EMPL 10-90% bands, bootstrap 10-90%)");
  std::vector<double> bins;
  for (int j = 1; j <= kClubs; ++j) bins.push_back(j);
  for (size_t i = 0; i < shown.size(); ++i) {
    const TestClub& c = *shown[i];
    Axes& axes = figure.axes(static_cast<int>(i), 0);
    axes.set_title(c.season->clubs[c.club] + " " + c.season->label);
    axes.set_xlabel("table position");
    axes.set_ylabel("cumulative fraction of weeks");
    axes.set_xlim(0.5, 18.5);
    axes.set_ylim(-0.05, 1.05);
    double running = 0.0;
    for (int j = 0; j < kClubs; ++j) {
      running += c.truth[j];
      axes.rect(j + 0.6, 0.0, j + 1.4, running, {.color = "#9ecae1", .opacity = 0.8, .label = j == 0 ? "truth" : ""});
    }
    for (int q = 0; q < 4; ++q) {  // 10-90, 20-80, 30-70, 40-60
      std::vector<double> lo(c.predicted[q].begin(), c.predicted[q].end()), hi(c.predicted[8 - q].begin(), c.predicted[8 - q].end());
      axes.band(bins, lo, hi, {.color = colormap(0.2 + 0.2 * q), .opacity = 0.45, .label = q == 0 ? "EMPL 10-90%" : ""});
    }
    std::vector<double> boot_lo, boot_hi;
    for (int j = 0; j < kClubs; ++j) {
      boot_lo.push_back(c.bootstrap[0][j]);
      boot_hi.push_back(c.bootstrap[8][j]);
    }
    axes.error_bars(bins, boot_lo, boot_hi, {.color = "#ff7f0e", .width = 1.5, .label = "bootstrap 10-90%"});
    axes.vline(c.final_position, {.color = "#555555", .dashed = true, .label = "final position " + std::to_string(c.final_position)});
    // The club's results, first match at the bottom: green win, grey draw, red defeat.
    Axes& strip = figure.axes(static_cast<int>(i), 1);
    strip.set_title("results, week 1 at the bottom");
    strip.set_xlim(0, 1);
    strip.set_ylim(0, kWeeks);
    for (int w = 0; w < kWeeks; ++w) {
      const int points = c.season->results[c.club][w].points;
      strip.rect(0.4, w + 0.1, 0.6, w + 0.9, {.color = points == 3 ? "#2ca02c" : points == 1 ? "#999999" : "#d62728"});
    }
  }
  return figure.render();
}

int run_train(const cxxopts::ParseResult& parsed, const CommonDefaults& defaults) {
  const CommonOptions options = read_common_options(parsed, defaults);
  set_num_threads(options.threads);
  const int replays = parsed["replays"].as<int>(), draws = parsed["bootstrap"].as<int>();
  if (replays <= 0) fail("--replays must be positive, got ", replays);
  if (draws <= 0) fail("--bootstrap must be positive, got ", draws);
  const bool gaussian = options.loss == "gauss";
  // Every flag and file that does not need the results is checked before they are read, so that a
  // bad one fails with its own line alone, not after the report of the file's rejected rows.
  OutputDirectory out(options.out);
  if (!options.save.empty() && options.load.empty()) check_save_path(options.save);
  auto model = build_model(options.seed, gaussian);
  const std::map<std::string, std::string> identity = {{"app", "bundesliga"}, {"loss", options.loss}};
  if (!options.load.empty()) load_model(options.load, *model, identity);
  // train() restores it again with the optimizer's state; reading it now proves it whole and of
  // this app and loss before the results are read and replayed.
  if (!options.resume.empty()) load_model(options.resume, *model, identity);

  const auto seasons = load_seasons(parsed);
  std::vector<const Season*> training;
  for (const auto& [label, season] : seasons)
    if (std::find(std::begin(kTestSeasons), std::end(kTestSeasons), label) == std::end(kTestSeasons)) training.push_back(&season);
  // A misspelt club is known as soon as the seasons are: refuse it now, not after training.
  const std::string wanted = parsed.count("figure-clubs") ? parsed["figure-clubs"].as<std::string>() : "";
  if (!wanted.empty()) {
    bool named = false;
    for (const char* label : kTestSeasons)
      for (const std::string& club : seasons.at(label).clubs) named = named || ("," + wanted + ",").find("," + club + ",") != std::string::npos;
    if (!named) fail("--figure-clubs '", wanted, "' names no club of the test seasons");
  }

  double seconds = 0.0, final_loss = 0.0;
  if (options.load.empty()) {
    const Dataset data = replayed_dataset(training, replays, options.seed);
    const int64_t samples = data.inputs.shape()[0];
    if (samples < options.batch) fail("--batch ", options.batch, " is larger than the ", samples, " training samples");
    const int64_t batches_per_epoch = samples / options.batch;  // the last partial batch of an epoch is dropped
    std::vector<int> order(static_cast<size_t>(samples));
    int64_t shuffled_epoch = -1;
    Tensor inputs = Tensor::empty({options.batch, kInputs}), labels = Tensor::empty({options.batch, kClubs});
    Tensor tau = Tensor::empty({options.batch, 1});
    Adam adam(model->flat_values(), model->flat_gradients());
    Tape tape;
    TrainingSetup setup = training_setup(options, identity, {1e-3f, 1.0f, 1});
    setup.save_every = batches_per_epoch * 10;
    const TrainingResult result = train(*model, adam, tape, setup, [&](Tape& t, int64_t step) {
      const int64_t epoch = step / batches_per_epoch, first = (step % batches_per_epoch) * options.batch;
      if (epoch != shuffled_epoch) {  // a new shuffle of the samples per epoch, from the epoch alone
        Rng(options.seed, 7000, static_cast<uint64_t>(epoch)).permutation(std::span<int>(order));
        shuffled_epoch = epoch;
      }
      parallel_for(options.batch, 256, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const int64_t row = order[static_cast<size_t>(first + i)];
          std::copy_n(data.inputs.data() + row * kWeeks, kWeeks, inputs.data() + i * kInputs);
          std::copy_n(data.labels.data() + row * kClubs, kClubs, labels.data() + i * kClubs);
          tau[i] = Rng(options.seed, 8000 + static_cast<uint64_t>(step), static_cast<uint64_t>(i)).uniform();
          inputs[i * kInputs + kWeeks] = tau_feature(tau[i]);
        }
      });
      const Var output = model->forward(t, Var(inputs));
      return gaussian ? gaussian_nll_loss(t, output, labels) : empl_loss(t, output, labels, tau, kAlpha);
    });
    seconds = result.seconds;
    final_loss = result.final_loss;
  }

  // Evaluation on the 54 clubs of the three test seasons, in their real week order.
  model->eval();
  std::vector<TestClub> clubs;
  for (const char* label : kTestSeasons) {
    const Season& season = seasons.at(label);
    const auto final_table = table_after(season, kWeeks);
    for (int c = 0; c < kClubs; ++c) {
      TestClub club{&season, c, {}, {}, {}, 0};
      for (int p = 0; p < kClubs; ++p)
        if (final_table[p].club == c) club.final_position = p + 1;
      clubs.push_back(club);
    }
  }
  Tensor features = Tensor::empty({static_cast<int64_t>(clubs.size()), kWeeks});  // τ goes last
  for (size_t k = 0; k < clubs.size(); ++k)
    club_sample(*clubs[k].season, positions(*clubs[k].season), clubs[k].club, {}, features.data() + k * kWeeks,
                clubs[k].truth.data());
  float levels[9];  // τ = 0.1..0.9
  for (int q = 0; q < 9; ++q) levels[q] = 0.1f * static_cast<float>(q + 1);
  const QuantilePrediction prediction =
      evaluate_quantiles(*model, features, levels, {.head = gaussian ? QuantileHead::gaussian : QuantileHead::density});
  for (size_t k = 0; k < clubs.size(); ++k)
    for (int q = 0; q < 9; ++q)
      for (int j = 0; j < kClubs; ++j) clubs[k].predicted[q][j] = prediction.at(static_cast<int64_t>(k), q, j);
  for (size_t k = 0; k < clubs.size(); ++k)
    clubs[k].bootstrap = bootstrap_quantiles(*clubs[k].season, clubs[k].club, training, replays, draws, options.seed, 9000 + k);

  // Outputs and summary numbers.
  std::ostringstream csv;
  csv << "season,club,final_position,bin,tau,predicted,bootstrap,true_cumulative\n";
  double abs_difference = 0.0;
  int64_t inside = 0, counted = 0, bad_curves = 0;
  char line[256];
  for (const TestClub& c : clubs) {
    double truth = 0.0;
    for (int j = 0; j < kClubs; ++j) {
      truth += c.truth[j];
      for (int q = 0; q < 9; ++q) {
        std::snprintf(line, sizeof line, "%s,%s,%d,%d,%.1f,%.6f,%.6f,%.6f\n", c.season->label.c_str(),
                      c.season->clubs[c.club].c_str(), c.final_position, j + 1, 0.1 * (q + 1), c.predicted[q][j],
                      c.bootstrap[q][j], std::min(truth, 1.0));
        csv << line;
        abs_difference += std::abs(c.predicted[q][j] - c.bootstrap[q][j]);
      }
      if (j + 1 < kClubs) {  // bin 18 is 1 for every club
        ++counted;
        inside += c.predicted[0][j] <= truth + 1e-6 && truth - 1e-6 <= c.predicted[8][j];
      }
    }
    for (int q = 0; q < 9; ++q) {
      bool bad = false;
      for (int j = 0; j < kClubs; ++j) {
        bad = bad || c.predicted[q][j] < -1e-6 || c.predicted[q][j] > 1 + 1e-6;
        if (j > 0) bad = bad || c.predicted[q][j] < c.predicted[q][j - 1] - 1e-6;
      }
      bad_curves += bad;
    }
  }
  const double mean_difference = abs_difference / (clubs.size() * 9.0 * kClubs);
  const double coverage = static_cast<double>(inside) / counted;
  std::ostringstream summary;
  summary << "metric,value\n"
          << "mean_abs_difference_to_bootstrap," << mean_difference << "\n"
          << "fraction_true_inside_10_90_band," << coverage << "\n"
          << "quantile_curves_outside_0_1_or_decreasing," << bad_curves << "\n"
          << "quantile_curves_total," << clubs.size() * 9 << "\n";

  // The figure: per test season, by default the club whose positions varied most over the season.
  std::vector<const TestClub*> shown;
  for (const char* label : kTestSeasons) {
    const TestClub* pick = nullptr;
    int widest = -1;
    for (const TestClub& c : clubs) {
      if (c.season->label != label) continue;
      if (!wanted.empty()) {
        if (("," + wanted + ",").find("," + c.season->clubs[c.club] + ",") != std::string::npos) pick = &c;
        continue;
      }
      const int distinct = static_cast<int>(std::count_if(c.truth.begin(), c.truth.end(), [](float h) { return h > 0; }));
      if (distinct > widest) widest = distinct, pick = &c;
    }
    if (pick) shown.push_back(pick);
  }
  if (shown.empty()) fail("--figure-clubs '", wanted, "' names no club of the test seasons");

  const std::vector<std::string> written = {out.write("test_predictions.csv", csv.str()), out.write("summary.csv", summary.str()),
                                            out.write("fig3_bundesliga.svg", figure_svg(shown))};
  std::printf("bundesliga: loss %s, %lld steps of batch %lld on %lld samples", options.loss.c_str(),
              static_cast<long long>(options.steps), static_cast<long long>(options.batch),
              static_cast<long long>(training.size()) * replays * kClubs);
  if (seconds > 0) std::printf(", trained in %.1f s (final loss %.5f)", seconds, final_loss);
  std::printf("\n  mean |predicted - bootstrap| quantile     %.4f\n", mean_difference);
  std::printf("  true cumulative values in the 10-90%% band  %.3f\n", coverage);
  std::printf("  quantile curves outside [0,1] or decreasing %lld of %zu%s\n", static_cast<long long>(bad_curves), clubs.size() * 9,
              gaussian ? "" : " (none by construction with the EMPL)");
  for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
  return 0;
}

int run(int argc, char** argv) {
  cxxopts::Options parser("bundesliga", "League-table position histograms from match results (paper section 3.2)");
  const CommonDefaults defaults{.steps = 250 * kBatchesPerEpoch, .batch = 2048, .loss = "empl", .losses = {"empl", "gauss"},
                                .out = "out/bundesliga"};
  add_common_options(parser, defaults);
  parser.add_options()
      ("command", "'table' to print a league table; nothing to train", cxxopts::value<std::string>())
      ("data", std::string("results CSV (default ") + kDefaultData + ")", cxxopts::value<std::string>())
      ("season", "table: the season, e.g. 1997-98", cxxopts::value<std::string>())
      ("week", "table: after this week (1..34)", cxxopts::value<int>()->default_value("34"))
      ("replays", "replays of each training season", cxxopts::value<int>()->default_value("1000"))
      ("bootstrap", "replayed seasons per test club for the bootstrap reference", cxxopts::value<int>()->default_value("200"))
      ("figure-clubs", "clubs to draw, comma separated (default: the most turbulent of each test season)",
       cxxopts::value<std::string>());
  parser.parse_positional({"command"});
  parser.positional_help("[table]");
  const auto parsed = parse_command_line(parser, argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", parser.help().c_str());
    return 0;
  }
  if (parsed.count("command")) {
    const std::string command = parsed["command"].as<std::string>();
    if (command != "table") fail("unknown command '", command, "' (the only command is 'table')");
    return run_table(parsed);
  }
  return run_train(parsed, defaults);
}

}  // namespace

int main(int argc, char** argv) { return run_app("bundesliga", argc, argv, run); }
