// The command line every app shares (issue "apps/toy_urn and apps/bimodal"): --help, --seed,
// --threads, --steps, --batch, --loss, --out, --load, --save, --quiet, and --shards for the apps
// that train data-parallel (issue 14). Defaults are each app's
// paper settings; values are checked here, so a bad one stops the run before any work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cxxopts.hpp>

namespace empl {

struct CommonDefaults {
  int64_t steps = 10000;
  int64_t batch = 2048;
  std::string loss = "empl";
  std::vector<std::string> losses = {"empl"};  // the names --loss accepts
  std::string out = "out";
  uint64_t seed = 1;
  bool data_parallel = false;  // the app draws only its rank's rows of a batch: --shards (issue 14)
};

struct CommonOptions {
  uint64_t seed = 1;
  int threads = 0;        // 0: all cores
  int64_t steps = 0;
  int64_t batch = 0;
  std::string loss;
  std::string out;        // output directory
  std::string load;       // checkpoint to evaluate (no training) when not empty
  std::string save;       // checkpoint to write (periodically and at the end) when not empty
  std::string resume;     // checkpoint to continue training from when not empty
  bool quiet = false;
  int64_t shards = 0;     // --shards G: the batch's shards (0: one per rank, unsharded on one process)
  int64_t stop_at = 0;    // --stop-at: train (and save) up to this step of the --steps run, then stop
};

void add_common_options(cxxopts::Options& options, const CommonDefaults& defaults);

// parser.parse(argc, argv), except that a value of the wrong type ("--steps abc") is reported
// with its flag: cxxopts names only the value ("Argument 'abc' failed to parse").
cxxopts::ParseResult parse_command_line(cxxopts::Options& parser, int argc, char** argv);

// Reads and validates the common flags; throws empl::Error naming the flag and the value.
CommonOptions read_common_options(const cxxopts::ParseResult& parsed, const CommonDefaults& defaults);

// Proves that a checkpoint can be written at `path` (--save) by creating and removing a probe file
// beside it; throws naming the flag and the path. Apps call it before training: otherwise a bad
// path fails only at the first save, thousands of steps in. (Not part of read_common_options,
// which only reads values and touches no file.)
void check_save_path(const std::string& path);

}  // namespace empl
