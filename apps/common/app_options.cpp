#include "apps/common/app_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace empl {

void add_common_options(cxxopts::Options& options, const CommonDefaults& defaults) {
  std::string loss_names;
  for (const std::string& name : defaults.losses) loss_names += (loss_names.empty() ? "" : ", ") + name;
  options.add_options()
      ("h,help", "show this help and exit")
      ("seed", "random seed (every random number derives from it)",
       cxxopts::value<uint64_t>()->default_value(std::to_string(defaults.seed)))
      ("threads", "threads for every kernel, matrix products included (0: all cores)",
       cxxopts::value<int>()->default_value("0"))
      ("steps", "training steps", cxxopts::value<int64_t>()->default_value(std::to_string(defaults.steps)))
      ("batch", "batch size", cxxopts::value<int64_t>()->default_value(std::to_string(defaults.batch)))
      ("loss", "training loss: " + loss_names, cxxopts::value<std::string>()->default_value(defaults.loss))
      ("out", "output directory", cxxopts::value<std::string>()->default_value(defaults.out))
      ("load", "evaluate this checkpoint instead of training", cxxopts::value<std::string>())
      ("save", "write checkpoints to this file while training", cxxopts::value<std::string>())
      ("resume", "continue training from this checkpoint", cxxopts::value<std::string>())
      ("quiet", "no progress line");
  if (defaults.data_parallel)
    options.add_options()("shards", "split every batch into this many shards, summed in a fixed order: the same "
                                    "bits on any number of MPI ranks dividing it (0: one per rank)",
                          cxxopts::value<int64_t>()->default_value("0"))
      ("stop-at", "stop after this step (saving to --save) of the --steps run, to --resume later, e.g. "
                  "on another number of ranks (0: run to the end)", cxxopts::value<int64_t>()->default_value("0"));
}

cxxopts::ParseResult parse_command_line(cxxopts::Options& parser, int argc, char** argv) {
  try {
    return parser.parse(argc, argv);
  } catch (const cxxopts::exceptions::incorrect_argument_type&) {
    // Find the flag by parsing again one flag at a time: "--flag=value" alone, "--flag value" as a
    // pair, unless the second one is refused on its own ("--quiet --batch=1.5").
    const auto refused = [&](std::vector<char*> arguments) {
      arguments.insert(arguments.begin(), argv[0]);
      try {
        parser.parse(static_cast<int>(arguments.size()), arguments.data());
      } catch (const cxxopts::exceptions::incorrect_argument_type&) {
        return true;
      } catch (const cxxopts::exceptions::exception&) {  // another complaint (a missing value) is not it
      }
      return false;
    };
    for (int i = 1; i < argc; ++i) {
      const std::string argument = argv[i];
      if (argument.rfind("--", 0) != 0) continue;
      const size_t equals = argument.find('=');
      if (equals != std::string::npos) {
        if (refused({argv[i]})) fail(argument.substr(0, equals), ": '", argument.substr(equals + 1), "' is not a valid value (see --help)");
      } else if (i + 1 < argc && refused({argv[i], argv[i + 1]}) && !refused({argv[i + 1]})) {
        fail(argument, ": '", argv[i + 1], "' is not a valid value (see --help)");
      }
    }
    throw;
  }
}

void check_save_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(path, error)) fail("--save ", path, ": is a directory, expected a checkpoint file");
  // The atomic write renames over the path: a device or a FIFO there would be replaced by a file.
  if (fs::exists(path, error) && !fs::is_regular_file(path, error))
    fail("--save ", path, ": exists and is not a regular file (a device, a FIFO or a socket)");
  const fs::path target(path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // The probe is the temporary file the atomic write will make, removed at once: access() alone
  // passes for root in /proc and on other file systems that refuse new files.
  std::string probe = (folder / ("." + target.filename().string() + ".tmpXXXXXX")).string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) fail("--save ", path, ": cannot write into ", folder.string(), ": ", std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
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
  if (defaults.data_parallel) {
    options.shards = parsed["shards"].as<int64_t>();
    if (options.shards < 0 || options.shards > options.batch)
      fail("--shards must be between 0 (one per rank) and --batch ", options.batch, ", got ", options.shards);
    options.stop_at = parsed["stop-at"].as<int64_t>();
    if (options.stop_at < 0 || options.stop_at > options.steps)
      fail("--stop-at must be between 0 (run to the end) and --steps ", options.steps, ", got ", options.stop_at);
    if (options.stop_at > 0 && options.save.empty()) fail("--stop-at ", options.stop_at, " needs --save: the run continues from that checkpoint");
    if (options.shards > 0 && options.batch % options.shards != 0)
      fail("--batch ", options.batch, " does not split into --shards ", options.shards, " equal shards (",
           options.batch, " = ", options.shards, " x ", options.batch / options.shards, " + ", options.batch % options.shards, ")");
  }
  if (options.out.empty()) fail("--out must name a directory, got an empty string");
  // An empty path (an unset shell variable) would otherwise mean "no such flag": --load "" would
  // train for hours instead of evaluating, --resume "" would start again from step 0.
  for (const char* flag : {"load", "save", "resume"})
    if (parsed.count(flag) && parsed[flag].as<std::string>().empty()) fail("--", flag, " must name a checkpoint file, got an empty string");
  if (!options.load.empty() && !options.resume.empty()) fail("--load evaluates and --resume trains: give one of them");
  return options;
}

}  // namespace empl
