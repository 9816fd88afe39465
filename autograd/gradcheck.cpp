#include "autograd/gradcheck.hpp"

#include <cmath>
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
  tape.backward(y, weights);

  GradcheckResult result;
  for (size_t which = 0; which < points.size(); ++which) {
    Tensor& x = points[which];
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float original = x[i];
      x[i] = static_cast<float>(original + options.step);
      const double plus = weighted_output(f, points, weights);
      x[i] = static_cast<float>(original - options.step);
      const double minus = weighted_output(f, points, weights);
      x[i] = original;
      const double numeric = (plus - minus) / (2.0 * options.step);
      const double analytic = leaves[which].grad[i];
      const double error = std::abs(analytic - numeric);
      const double allowed =
          options.absolute_tolerance + options.relative_tolerance * std::abs(numeric);
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
