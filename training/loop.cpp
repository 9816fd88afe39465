// training/loop: for each step, loss = step(tape) → tape.backward(loss) → a finite check → the
// optimizer at lr(step) → tape.clear(), with atomic checkpoints every save_every steps, resume
// from one, and a saved stop on SIGINT/SIGTERM. Read training/loop.hpp first.
#include "training/loop.hpp"

#include <atomic>
#include <cmath>
#include <csignal>

#include "core/error.hpp"
#include "io/checkpoint.hpp"
#include "training/communicator.hpp"
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

// The checkpoint's identity: the app's, and a sharded run's G (which its bits depend on; R does not).
std::map<std::string, std::string> run_metadata(const TrainingSetup& setup) {
  auto metadata = setup.metadata;
  if (setup.shards > 0) metadata["shards"] = std::to_string(setup.shards);
  return metadata;
}

// Sets the tape's shards for the run and unsets them after (the tape outlives the run).
class ShardedTape {
 public:
  ShardedTape(Tape& tape, const Shards* shards) : tape_(tape) { tape.set_shards(shards); }
  ~ShardedTape() { tape_.set_shards(nullptr); }
  ShardedTape(const ShardedTape&) = delete;
  ShardedTape& operator=(const ShardedTape&) = delete;

 private:
  Tape& tape_;
};

void save(const TrainingSetup& setup, Module& model, Adam& optimizer, int64_t step) {
  if (world().rank() != 0) return;  // rank 0 alone writes
  auto metadata = run_metadata(setup);
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
  Communicator& ranks = world();
  const int64_t size = ranks.size();
  if (size > 1 && setup.shards == 0)
    fail("training on ", size, " ranks needs a sharded batch (TrainingSetup::shards, the apps' --shards)");
  if (setup.shards < 0) fail("training: shards must be positive, got ", setup.shards);
  if (setup.shards > 0 && (setup.shards % size != 0 || (size & (size - 1)) != 0))
    fail("training: ", setup.shards, " shards on ", size, " ranks: the ranks must be a power of two dividing the shards");
  const Shards shards{.total = std::max<int64_t>(setup.shards, 1), .local = std::max<int64_t>(setup.shards, 1) / size,
                      .ranks = size > 1 ? &ranks : nullptr};
  const ShardedTape sharded_tape(tape, setup.shards > 0 ? &shards : nullptr);
  const auto metadata = run_metadata(setup);
  int64_t start = 0;
  if (!setup.resume_path.empty() && ranks.rank() == 0) {  // rank 0 reads, then sends to the others
    Checkpoint checkpoint = load_checkpoint(setup.resume_path);
    for (const auto& [key, value] : metadata) {
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
  if (size > 1) {  // every rank starts from rank 0's parameters, buffers, optimizer and hook state
    ranks.broadcast_bytes(&start, sizeof start);
    std::vector<NamedTensor> state = training_state(model, optimizer);
    state.insert(state.end(), setup.hook.state.begin(), setup.hook.state.end());
    for (NamedTensor& entry : state) ranks.broadcast(entry.tensor.data(), entry.tensor.numel());
  }
  StopOnSignal stop_on_signal;
  ProgressLine progress(setup.steps, setup.quiet || ranks.rank() != 0);
  // Each rank's loss is the mean over its B/R rows: seeded with 1/R, every row's gradient has the
  // bits it has on one process (both factors are powers of two, so no rounding differs).
  const Tensor seed = Tensor::full({1}, 1.0f / static_cast<float>(size));
  model.train();
  double recent_sum = 0.0;
  int64_t recent_count = 0;
  float loss_value = 0.0f;
  const int64_t end = setup.stop_at > 0 ? std::min(setup.stop_at, setup.steps) : setup.steps;
  for (int64_t step = start; step < end; ++step) {
    const Var loss = forward_loss(tape, step);
    loss_value = loss.value.item();
    model.zero_grad();
    int stop_signal = 0;
    if (size == 1) {
      tape.backward(loss);
    } else {
      stop_signal = g_stop_signal.load();
      tape.backward(loss, seed.view_at(0, loss.shape()));
      ranks.sum_subtrees(model.flat_gradients().data(), model.flat_gradients().numel());
      // The mean loss for the progress line (its bits depend on R), and whether any rank was asked
      // to stop, so that all stop after the same step.
      float exchange[2] = {loss_value / static_cast<float>(size), stop_signal != 0 ? 1.0f : 0.0f};
      ranks.sum_subtrees(exchange, 2);
      loss_value = exchange[0];
      if (stop_signal == 0 && exchange[1] > 0.0f) stop_signal = SIGTERM;
    }
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
    const bool last = step + 1 == end;
    if (!setup.save_path.empty() && (last || (step + 1) % setup.save_every == 0)) save(setup, model, optimizer, step + 1);
    if (const int signal = size == 1 ? g_stop_signal.load() : stop_signal; signal != 0 && !last) {
      if (!setup.save_path.empty()) save(setup, model, optimizer, step + 1);
      progress.finish(loss_value);
      throw Interrupted(std::string(signal == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)") + " at step " +
                        std::to_string(step + 1) +
                        (setup.save_path.empty() ? "; nothing saved (no save path)"
                                                  : "; saved " + setup.save_path + ", resume from it to continue"));
    }
  }
  progress.finish(loss_value);
  return {std::max<int64_t>(end - start, 0), recent_count ? recent_sum / recent_count : loss_value, progress.elapsed_seconds()};
}

}  // namespace empl
