#include "apps/bimodal/bimodal_model.hpp"

#include "apps/bimodal/bimodal_data.hpp"
#include "layers/activations.hpp"
#include "layers/linear.hpp"

namespace empl::bimodal {

std::unique_ptr<Sequential> build_model(uint64_t seed, const std::string& loss, int64_t hidden) {
  const bool gaussian = loss == "gauss";
  auto model = std::make_unique<Sequential>();
  model->add<Linear>(kFeatures, hidden, LinearOptions{.seed = seed, .stream = 201});
  model->add<ReLU>();
  model->add<Linear>(hidden, hidden, LinearOptions{.seed = seed, .stream = 202});
  model->add<ReLU>();
  model->add<Linear>(hidden, gaussian ? 2 * kBins : kBins, LinearOptions{.seed = seed, .stream = 203});
  if (!gaussian) model->add<Softmax>();
  model->pack();
  return model;
}

}  // namespace empl::bimodal
