// training/progress: the progress line (step, loss, steps/s, time left = remaining steps / rate),
// redrawn in place on a terminal and printed every few seconds in a log.
// Read training/progress.hpp first.
#include "training/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace empl {

ProgressLine::ProgressLine(int64_t total_steps, bool quiet, double log_interval_seconds)
    : total_steps_(total_steps),
      quiet_(quiet),
      terminal_(isatty(STDERR_FILENO) != 0),
      interval_(terminal_ ? 0.2 : log_interval_seconds),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

double ProgressLine::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::update(int64_t step, double loss) {
  last_step_ = step;
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_print_).count() < interval_) return;
  last_print_ = now;
  print(step, loss, false);
}

void ProgressLine::finish(double loss) {
  if (quiet_) return;
  print(last_step_, loss, true);
}

void ProgressLine::print(int64_t step, double loss, bool final_line) {
  const double elapsed = elapsed_seconds();
  const double rate = elapsed > 0 ? step / elapsed : 0.0;
  const double left = rate > 0 ? (total_steps_ - step) / rate : 0.0;
  if (final_line) {
    std::fprintf(stderr, "%sstep %lld/%lld  loss %.6f  %.1f steps/s  done in %.1f s%s\n",
                 terminal_ ? "\r" : "", static_cast<long long>(step),
                 static_cast<long long>(total_steps_), loss, rate, elapsed, terminal_ ? "\033[K" : "");
  } else {
    std::fprintf(stderr, "%sstep %lld/%lld  loss %.6f  %.1f steps/s  %.0f s left%s",
                 terminal_ ? "\r" : "", static_cast<long long>(step),
                 static_cast<long long>(total_steps_), loss, rate, left, terminal_ ? "\033[K" : "\n");
  }
  std::fflush(stderr);
}

}  // namespace empl
