// The apps' glue between their common flags and the library's training loop (read train_or_load.hpp first).
#include "apps/common/train_or_load.hpp"

namespace empl {

TrainingSetup training_setup(const CommonOptions& options, const std::map<std::string, std::string>& identity,
                             const ExponentialDecay& schedule) {
  return {.steps = options.steps, .schedule = schedule, .save_path = options.save, .resume_path = options.resume,
          .metadata = identity, .quiet = options.quiet};
}

TrainingResult train_or_load(Module& model, const CommonOptions& options, const std::map<std::string, std::string>& identity,
                             const ExponentialDecay& schedule, const ForwardLoss& forward_loss, const StepHook& hook) {
  if (!options.load.empty()) {
    load_model(options.load, model, identity);
    return {};
  }
  if (!options.save.empty()) check_save_path(options.save);
  Adam adam(model.flat_values(), model.flat_gradients());
  Tape tape;
  TrainingSetup setup = training_setup(options, identity, schedule);
  setup.hook = hook;
  return train(model, adam, tape, setup, forward_loss);
}

}  // namespace empl
