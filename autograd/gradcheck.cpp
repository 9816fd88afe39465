// autograd/gradcheck: compares the tape's dL/dx with the central difference
// (L(x + h·e_i) − L(x − h·e_i)) / 2h of L = Σ r ⊙ f(x), element by element, and reports the worst.
// Read autograd/gradcheck.hpp first (choice of h, tolerances, kinks).
#include "autograd/gradcheck.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include "core/error.hpp"

namespace empl {
namespace {

// L = Σ r·f(x) in double, with no tape recording.
double weighted_output(const GradcheckFunction& f, const std::vector<Tensor>& inputs,
                       const Tensor& weights) {
  Tape tape;
  Tape::NoGrad no_grad(tape);
  std::vector<Var> leaves;
  for (const Tensor& input : inputs) leaves.emplace_back(input);
  const Var y = f(tape, leaves);
  double total = 0.0;
  for (int64_t i = 0; i < y.value.numel(); ++i) total += double(weights[i]) * y.value[i];
  return total;
}

}  // namespace

GradcheckResult gradcheck(const GradcheckFunction& f, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options) {
  // Analytic gradients: one forward and one backward seeded with the weights r.
  std::vector<Tensor> points;
  std::vector<Var> leaves;
  for (const Tensor& input : inputs) {
    points.push_back(input.clone());
    leaves.push_back(make_leaf(points.back()));
  }
  Tape tape;
  const Var y = f(tape, leaves);
  Tensor weights = Tensor::empty(y.shape(), "gradcheck weights");
  std::mt19937_64 engine(options.seed);
  std::uniform_real_distribution<float> uniform(0.5f, 1.5f);  // away from 0: no element unseen
  for (float& w : weights.values()) w = (engine() & 1) ? uniform(engine) : -uniform(engine);
  // Each y_k carries a float32 rounding of about ε·|y_k|, so L carries about ε·Σ|r_k·y_k| and the
  // central difference that divided by 2h: the noise no tolerance may go below.
  double magnitude = 0.0;
  for (int64_t k = 0; k < y.value.numel(); ++k) magnitude += std::abs(double(weights[k]) * y.value[k]);
  const double noise = 4.0 * std::numeric_limits<float>::epsilon() * magnitude / options.step;
  tape.backward(y, weights);

  GradcheckResult result;
  for (size_t which = 0; which < points.size(); ++which) {
    Tensor& x = points[which];
    std::vector<double> numerics(static_cast<size_t>(x.numel()));
    double largest = 0.0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float original = x[i];
      x[i] = static_cast<float>(original + options.step);
      const double plus = weighted_output(f, points, weights);
      x[i] = static_cast<float>(original - options.step);
      const double minus = weighted_output(f, points, weights);
      x[i] = original;
      numerics[static_cast<size_t>(i)] = (plus - minus) / (2.0 * options.step);
      largest = std::max(largest, std::abs(numerics[static_cast<size_t>(i)]));
    }
    const double floor = std::max(options.absolute_tolerance * largest, noise);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double numeric = numerics[static_cast<size_t>(i)];
      const double analytic = leaves[which].grad[i];
      const double error = std::abs(analytic - numeric);
      const double allowed = floor + options.relative_tolerance * std::abs(numeric);
      if (error > result.worst_error) {
        std::ostringstream where;
        where << "input " << which << " element " << i << ": analytic " << analytic
              << " numeric " << numeric;
        result.worst_error = error;
        result.worst = where.str();
      }
      if (error > allowed) result.ok = false;
    }
  }
  return result;
}

}  // namespace empl
