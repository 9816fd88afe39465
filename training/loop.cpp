// training/loop: for each step, loss = step(tape) → tape.backward(loss) → a finite check → the
// optimizer at lr(step) → tape.clear(), with atomic checkpoints every save_every steps, resume
// from one, and a saved stop on SIGINT/SIGTERM. Read training/loop.hpp first.
#include "training/loop.hpp"

#include <atomic>
#include <cmath>
#include <csignal>

#include "core/error.hpp"
#include "io/checkpoint.hpp"
#include "training/progress.hpp"

namespace empl {
namespace {

std::atomic<int> g_stop_signal{0};  // set by the signal handler, read once per step

extern "C" void request_stop(int signal) { g_stop_signal.store(signal); }

// Installs the handlers for the duration of a training run and restores the old ones after.
class StopOnSignal {
 public:
  StopOnSignal() {
    g_stop_signal.store(0);
    old_int_ = std::signal(SIGINT, request_stop);
    old_term_ = std::signal(SIGTERM, request_stop);
  }
  ~StopOnSignal() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  void (*old_int_)(int);
  void (*old_term_)(int);
};

std::vector<NamedTensor> model_state(Module& model) {
  std::vector<NamedTensor> state = model.named_parameters();
  for (NamedTensor& buffer : model.named_buffers()) state.push_back(buffer);
  return state;
}

// The first parameter whose value or gradient is not finite, for the error message.
std::string first_bad_parameter(Module& model) {
  std::string found;
  model.visit_parameters("", [&](const std::string& name, Var& var) {
    if (!found.empty()) return;
    for (int64_t i = 0; i < var.value.numel(); ++i) {
      if (!std::isfinite(var.value[i]) || (var.grad.defined() && !std::isfinite(var.grad[i]))) {
        found = name + "[" + std::to_string(i) + "] (value " + std::to_string(var.value[i]) + ", gradient " +
                std::to_string(var.grad.defined() ? var.grad[i] : 0.0f) + ")";
        return;
      }
    }
  });
  return found;
}

void save(const TrainingSetup& setup, Module& model, Adam& optimizer, int64_t step) {
  auto metadata = setup.metadata;
  metadata["step"] = std::to_string(step);
  metadata["steps"] = std::to_string(setup.steps);
  std::vector<NamedTensor> state = training_state(model, optimizer);
  state.insert(state.end(), setup.hook.state.begin(), setup.hook.state.end());
  save_checkpoint(setup.save_path, state, metadata);
}

}  // namespace

std::vector<NamedTensor> training_state(Module& model, Adam& optimizer) {
  std::vector<NamedTensor> state = model_state(model);
  for (NamedTensor& entry : optimizer.state()) state.push_back(entry);
  return state;
}

std::map<std::string, std::string> load_model(const std::string& path, Module& model,
                                              const std::map<std::string, std::string>& expected) {
  Checkpoint checkpoint = load_checkpoint(path);
  for (const auto& [key, value] : expected) {
    const auto found = checkpoint.metadata.find(key);
    if (found == checkpoint.metadata.end() || found->second != value)
      fail(path, ": checkpoint has ", key, " '", found == checkpoint.metadata.end() ? "(none)" : found->second,
           "', expected '", value, "'");
  }
  // Evaluation needs the model's tensors only: drop the optimizer state at the end.
  const std::vector<NamedTensor> destinations = model_state(model);
  if (checkpoint.tensors.size() > destinations.size()) checkpoint.tensors.resize(destinations.size());
  restore(checkpoint, destinations, path);
  return checkpoint.metadata;
}

TrainingResult train(Module& model, Adam& optimizer, Tape& tape, const TrainingSetup& setup, const ForwardLoss& forward_loss) {
  int64_t start = 0;
  if (!setup.resume_path.empty()) {
    Checkpoint checkpoint = load_checkpoint(setup.resume_path);
    for (const auto& [key, value] : setup.metadata) {
      const auto found = checkpoint.metadata.find(key);
      if (found == checkpoint.metadata.end() || found->second != value)
        fail(setup.resume_path, ": cannot resume: checkpoint has ", key, " '",
             found == checkpoint.metadata.end() ? "(none)" : found->second, "', this run has '", value, "'");
    }
    std::vector<NamedTensor> state = training_state(model, optimizer);
    state.insert(state.end(), setup.hook.state.begin(), setup.hook.state.end());
    restore(checkpoint, state, setup.resume_path);
    start = std::stoll(checkpoint.metadata.at("step"));
    if (start > setup.steps) fail(setup.resume_path, ": checkpoint is at step ", start, ", beyond the run's ", setup.steps, " steps");
  }
  StopOnSignal stop_on_signal;
  ProgressLine progress(setup.steps, setup.quiet);
  model.train();
  double recent_sum = 0.0;
  int64_t recent_count = 0;
  float loss_value = 0.0f;
  for (int64_t step = start; step < setup.steps; ++step) {
    const Var loss = forward_loss(tape, step);
    loss_value = loss.value.item();
    model.zero_grad();
    tape.backward(loss);
    const std::string bad = first_bad_parameter(model);
    if (!std::isfinite(loss_value) || !bad.empty())
      fail("training stopped at step ", step, ": loss ", loss_value, ", first bad parameter: ", bad.empty() ? "none" : bad,
           setup.save_path.empty() ? std::string() : "; the last good checkpoint " + setup.save_path + " is kept",
           "\nHINT: lower the learning rate or check the inputs for NaN");
    optimizer.step(setup.schedule.at(step));
    if (setup.hook.after_step) setup.hook.after_step(step);
    tape.clear();
    if (step >= setup.steps - 100) {
      recent_sum += loss_value;
      ++recent_count;
    }
    progress.update(step + 1, loss_value);
    const bool last = step + 1 == setup.steps;
    if (!setup.save_path.empty() && (last || (step + 1) % setup.save_every == 0)) save(setup, model, optimizer, step + 1);
    if (const int signal = g_stop_signal.load(); signal != 0 && !last) {
      if (!setup.save_path.empty()) save(setup, model, optimizer, step + 1);
      progress.finish(loss_value);
      throw Interrupted(std::string(signal == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)") + " at step " +
                        std::to_string(step + 1) +
                        (setup.save_path.empty() ? "; nothing saved (no save path)"
                                                  : "; saved " + setup.save_path + ", resume from it to continue"));
    }
  }
  progress.finish(loss_value);
  return {setup.steps - start, recent_count ? recent_sum / recent_count : loss_value, progress.elapsed_seconds()};
}

}  // namespace empl
