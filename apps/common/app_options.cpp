#include "apps/common/app_options.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace empl {

void add_common_options(cxxopts::Options& options, const CommonDefaults& defaults) {
  std::string loss_names;
  for (const std::string& name : defaults.losses) loss_names += (loss_names.empty() ? "" : ", ") + name;
  options.add_options()
      ("h,help", "show this help and exit")
      ("seed", "random seed (every random number derives from it)",
       cxxopts::value<uint64_t>()->default_value(std::to_string(defaults.seed)))
      ("threads", "threads for oneTBB and OpenBLAS (0: all cores)",
       cxxopts::value<int>()->default_value("0"))
      ("steps", "training steps", cxxopts::value<int64_t>()->default_value(std::to_string(defaults.steps)))
      ("batch", "batch size", cxxopts::value<int64_t>()->default_value(std::to_string(defaults.batch)))
      ("loss", "training loss: " + loss_names, cxxopts::value<std::string>()->default_value(defaults.loss))
      ("out", "output directory", cxxopts::value<std::string>()->default_value(defaults.out))
      ("load", "evaluate this checkpoint instead of training", cxxopts::value<std::string>())
      ("save", "write checkpoints to this file while training", cxxopts::value<std::string>())
      ("resume", "continue training from this checkpoint", cxxopts::value<std::string>())
      ("quiet", "no progress line");
}

CommonOptions read_common_options(const cxxopts::ParseResult& parsed, const CommonDefaults& defaults) {
  if (!parsed.unmatched().empty()) fail("unexpected argument '", parsed.unmatched().front(), "'");
  CommonOptions options;
  options.seed = parsed["seed"].as<uint64_t>();
  options.threads = parsed["threads"].as<int>();
  options.steps = parsed["steps"].as<int64_t>();
  options.batch = parsed["batch"].as<int64_t>();
  options.loss = parsed["loss"].as<std::string>();
  options.out = parsed["out"].as<std::string>();
  if (parsed.count("load")) options.load = parsed["load"].as<std::string>();
  if (parsed.count("save")) options.save = parsed["save"].as<std::string>();
  if (parsed.count("resume")) options.resume = parsed["resume"].as<std::string>();
  options.quiet = parsed.count("quiet") > 0;

  if (options.threads < 0 || options.threads > 1024)
    fail("--threads must be between 0 (all cores) and 1024, got ", options.threads);
  if (options.steps <= 0) fail("--steps must be positive, got ", options.steps);
  if (options.batch <= 0 || options.batch > (int64_t{1} << 24))
    fail("--batch must be between 1 and 16777216, got ", options.batch);
  if (std::find(defaults.losses.begin(), defaults.losses.end(), options.loss) == defaults.losses.end()) {
    std::string names;
    for (const std::string& name : defaults.losses) names += (names.empty() ? "" : ", ") + name;
    fail("--loss: unknown loss '", options.loss, "' (choose from ", names, ")");
  }
  if (options.out.empty()) fail("--out must name a directory, got an empty string");
  if (!options.load.empty() && !options.resume.empty()) fail("--load evaluates and --resume trains: give one of them");
  return options;
}

}  // namespace empl
