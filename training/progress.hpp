// The progress line of a training run (training/loop.hpp draws it): step, loss, steps per second
// and time left.
//
// On a terminal it redraws in place (carriage return); in a log (CI, a pipe) it prints a new line
// every few seconds instead, so logs stay short. `quiet` silences it. It writes to stderr, so
// that the results printed on stdout stay clean.
// Read after training/loop.hpp.
#pragma once

#include <chrono>
#include <cstdint>

namespace empl {

class ProgressLine {
 public:
  ProgressLine(int64_t total_steps, bool quiet, double log_interval_seconds = 5.0);
  // Call once per step; cheap when nothing is printed.
  void update(int64_t step, double loss);
  // Prints the final line (with the total time) and ends the redrawn line.
  void finish(double loss);
  double elapsed_seconds() const;

 private:
  void print(int64_t step, double loss, bool final_line);

  int64_t total_steps_;
  bool quiet_;
  bool terminal_;
  double interval_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
  int64_t last_step_ = 0;
};

}  // namespace empl
