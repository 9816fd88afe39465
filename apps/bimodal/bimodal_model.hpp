// The bimodal example's network (supplementary S2): an MLP 4 → 256 → 256 → out with ReLU and no
// batch norm. With the EMPL (default) the output is N = 10 logits → softmax; with the Gaussian
// baseline it is 2N values: N logits for the means and N log-variances (losses/gaussian_nll.hpp).
#pragma once

#include <memory>
#include <string>

#include "layers/sequential.hpp"

namespace empl::bimodal {

std::unique_ptr<Sequential> build_model(uint64_t seed, const std::string& loss, int64_t hidden = 256);

}  // namespace empl::bimodal
