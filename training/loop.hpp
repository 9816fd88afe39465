// The training loop every run shares: one step is forward (the caller's function) → backward →
// optimizer → tape.clear(), with a learning-rate schedule, a progress line, periodic atomic
// checkpoints, resuming, a stop on Ctrl-C/SIGTERM that saves first, and a stop on a non-finite
// loss or gradient that names the step and the first bad parameter (and keeps the last good
// checkpoint). It knows no command line: a plain TrainingSetup says what to do (the apps fill it
// from their flags in apps/common/train_or_load.hpp). Read after optim/adam.hpp and io/checkpoint.hpp.
//
// Batches must come from the step number alone (core/random.hpp's Rng(seed, step, i)), so that a
// resumed run draws exactly the batches an uninterrupted one would have.
//
// Data parallel (issue 14): with setup.shards = G, the batch is G shards and every sum over it
// is taken along the shards' fixed tree (autograd/shards.hpp); under mpirun each of the R ranks
// computes its G/R shards (forward_loss draws the rank's rows, by global sample index) and the
// loop sums the packed gradients over the ranks (training/communicator.hpp). Parameters and
// optimizer state start from rank 0's; rank 0 alone saves and shows progress. The same G gives
// the same bits on any R (a power of two dividing G) and any thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/tape.hpp"
#include "layers/module.hpp"
#include "optim/adam.hpp"
#include "optim/schedule.hpp"

namespace empl {

// Optional work after each optimizer step (a weight average: optim/weight_average.hpp) and its
// state, which checkpoints carry after the optimizer's and a resume restores.
struct StepHook {
  std::function<void(int64_t step)> after_step;  // called with the step just taken (from 0)
  std::vector<NamedTensor> state;
};

struct TrainingSetup {
  int64_t steps = 0;               // the run's total; a resumed run continues up to it
  ExponentialDecay schedule;
  std::string save_path;          // checkpoints written here when not empty
  int64_t save_every = 1000;      // steps between checkpoints (and one at the end)
  std::string resume_path;        // continue from this checkpoint when not empty
  std::map<std::string, std::string> metadata;  // written into checkpoints ("app", "loss", ...)
  bool quiet = false;             // no progress line on stderr
  StepHook hook;
  int64_t shards = 0;             // G: the batch's shards (0: one unsharded batch, one process only)
  // Stop (and save) after this step although the schedule runs to `steps` (0: run to the end):
  // a job that must fit a cluster queue's time limit continues later with resume_path.
  int64_t stop_at = 0;
};

// Computes the loss of step `step` on the tape (the loop does the rest).
using ForwardLoss = std::function<Var(Tape& tape, int64_t step)>;

struct TrainingResult {
  int64_t steps_done = 0;
  double final_loss = 0.0;   // mean loss over the last 100 steps
  double seconds = 0.0;
};

// Trains the packed `model` (Adam built on its flat tensors) for setup.steps steps. With a
// resume path, the checkpoint's metadata must agree with setup.metadata on every key.
TrainingResult train(Module& model, Adam& optimizer, Tape& tape, const TrainingSetup& setup, const ForwardLoss& forward_loss);

// Everything a run needs to continue exactly: parameters, buffers, optimizer state.
std::vector<NamedTensor> training_state(Module& model, Adam& optimizer);

// Loads a checkpoint's parameters and buffers into `model` (for evaluation; optimizer state is
// ignored). When `expected` is given, the checkpoint's metadata must agree on those keys.
// Returns the checkpoint's metadata.
std::map<std::string, std::string> load_model(const std::string& path, Module& model,
                                              const std::map<std::string, std::string>& expected = {});

// Thrown when SIGINT or SIGTERM stopped training (after saving, when a save path was given).
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace empl
