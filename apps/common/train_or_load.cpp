// The apps' glue between their common flags and the library's training loop (read train_or_load.hpp first).
#include "apps/common/train_or_load.hpp"

#include "core/error.hpp"
#include "io/checkpoint.hpp"
#include "training/communicator.hpp"

namespace empl {

RankRows rank_rows(const CommonOptions& options) {
  const int64_t size = world().size();
  const int64_t shards = options.shards > 0 ? options.shards : (size > 1 ? size : 0);
  if (shards == 0) return {0, options.batch, 0};
  if ((size & (size - 1)) != 0 || shards % size != 0)
    fail("--shards ", shards, " on ", size, " ranks: the number of ranks must be a power of two dividing the shards",
         "\nHINT: run with mpirun -np 1, 2, 4, ... (a divisor of ", shards, ")");
  if (options.batch % shards != 0)
    fail("--batch ", options.batch, " does not split into ", shards, " shards (one per rank; give --batch a multiple of ", shards, ")");
  const int64_t rows = options.batch / size;
  return {world().rank() * rows, rows, shards};
}

TrainingSetup training_setup(const CommonOptions& options, const std::map<std::string, std::string>& identity,
                             const ExponentialDecay& schedule) {
  return {.steps = options.steps, .schedule = schedule, .save_path = options.save, .resume_path = options.resume,
          .metadata = identity, .quiet = options.quiet, .shards = rank_rows(options).shards,
          .stop_at = options.stop_at};
}

TrainingResult train_or_load(Module& model, const CommonOptions& options, const std::map<std::string, std::string>& identity,
                             const ExponentialDecay& schedule, const ForwardLoss& forward_loss, const StepHook& hook) {
  if (!options.load.empty()) {
    load_model(options.load, model, identity);
    return {};
  }
  if (!options.save.empty() && world().rank() == 0) check_save_path(options.save);  // rank 0 alone writes
  Adam adam(model.flat_values(), model.flat_gradients());
  Tape tape;
  TrainingSetup setup = training_setup(options, identity, schedule);
  setup.hook = hook;
  return train(model, adam, tape, setup, forward_loss);
}

AverageFlags read_average_flags(const cxxopts::ParseResult& parsed) {
  const AverageFlags flags{.decay = parsed["average-decay"].as<float>(), .steps = parsed["average-steps"].as<int64_t>()};
  if (!(flags.decay >= 0.0f && flags.decay < 1.0f)) fail("--average-decay must be in [0, 1), got ", flags.decay);
  if (flags.steps <= 0) fail("--average-steps must be positive, got ", flags.steps);
  return flags;
}

StepHook average_hook(WeightAverage& average, const AverageFlags& flags, int64_t run_steps) {
  if (flags.decay == 0.0f) return {};
  const int64_t first = average_start(run_steps, flags.steps);
  return {[&average, first](int64_t step) { if (step >= first) average.update(); }, average.state()};
}

void evaluate_with_average(WeightAverage& average, const CommonOptions& options) {
  if (!options.load.empty()) average.restore_from(load_checkpoint(options.load).tensors);
  if (average.count() > 0) average.swap_into_model();
}

}  // namespace empl
