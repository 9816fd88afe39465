// The apps' glue between their common flags (apps/common/app_options.hpp) and the library's
// training loop (training/loop.hpp): --steps, --save, --resume and --quiet become a TrainingSetup;
// --load skips training and restores the model instead. The loop itself knows no flag.
#pragma once

#include <map>
#include <string>

#include "apps/common/app_options.hpp"
#include "optim/weight_average.hpp"
#include "training/loop.hpp"

namespace empl {

// This process's rows of every batch (issue 14): rows [first, first + rows) of the global --batch,
// split into `shards` (--shards G, or one per rank under mpirun; 0: one process, unsharded).
// Refused, naming the numbers, when the batch does not split into G shards or the R ranks are not
// a power of two dividing G.
struct RankRows {
  int64_t first = 0, rows = 0, shards = 0;
};
RankRows rank_rows(const CommonOptions& options);

// The setup the common flags ask for, with the app's identity (checkpoint metadata) and schedule.
TrainingSetup training_setup(const CommonOptions& options, const std::map<std::string, std::string>& identity,
                             const ExponentialDecay& schedule);

// What every app does with its common flags: with --load, restore the model from the checkpoint
// (which must carry `identity` in its metadata) and return a result with no steps; otherwise train
// it with Adam (--steps, --save, --resume, --quiet), the given schedule and the optional step hook.
TrainingResult train_or_load(Module& model, const CommonOptions& options, const std::map<std::string, std::string>& identity,
                             const ExponentialDecay& schedule, const ForwardLoss& forward_loss, const StepHook& hook = {});

// The weight average the apps evaluate with (optim/weight_average.hpp): --average-decay (0: off)
// and --average-steps, read from the app's own flags and checked.
struct AverageFlags {
  float decay = 0.0f;
  int64_t steps = 0;
};
AverageFlags read_average_flags(const cxxopts::ParseResult& parsed);

// The hook that folds each of the run's last flags.steps steps (at most its second half,
// average_start) into `average`; no hook when the decay is 0.
StepHook average_hook(WeightAverage& average, const AverageFlags& flags, int64_t run_steps);

// After training (or --load, whose checkpoint carries the average): evaluate with the averaged
// weights when there are any.
void evaluate_with_average(WeightAverage& average, const CommonOptions& options);

}  // namespace empl
