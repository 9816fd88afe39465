// empl_fit's network, its losses and its saved form. The network is the paper's MLP made generic:
// F standardised features and (τ − 0.5)·12 in, hidden layers of Linear → ReLU → BatchNorm (the
// toy urn's layout, apps/toy_urn/toy_model.cpp), and N logits out through a softmax, or N + 1
// outputs through SoftmaxWithTotal when the histograms are raw counts (layers/total_head.hpp).
// The saved model is one checkpoint holding the weights, the preprocessing (feature mean and
// scale, the log-total scale) and the shapes, so `empl_fit predict` needs nothing else.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "autograd/tape.hpp"
#include "layers/sequential.hpp"
#include "training/histogram_data.hpp"

namespace empl::fit {

// The losses --loss accepts. One row per loss: to add one, add a row to kFitLosses in
// fit_model.cpp (name, whether it is trained on τ ~ U(0, 1), the function).
struct FitLoss {
  const char* name;
  bool uses_tau;  // false: trained and evaluated at τ = 0.5 (every level then gives one curve)
  Var (*loss)(Tape& tape, const Var& density, const Tensor& labels, const Tensor& tau);
};
std::span<const FitLoss> fit_losses();
const FitLoss& fit_loss(const std::string& name);  // throws naming the unknown name

// "128,128" -> {128, 128}; throws naming `flag` and the text.
std::vector<int64_t> parse_hidden(const std::string& text, const std::string& flag = "--hidden");

struct ModelShape {
  int64_t features = 0, bins = 0;
  std::vector<int64_t> hidden;
  bool counts = false;  // an extra output for the log total count
};
std::unique_ptr<Sequential> build_model(const ModelShape& shape, uint64_t seed);

// The loss of one batch: the histogram loss on the density columns, plus, with counts, the pinball
// loss of the standardised log total at the same τ (so the total's τ-quantile is predicted too).
Var batch_loss(Tape& tape, const FitLoss& loss, const ModelShape& shape, const Var& output, const Tensor& labels,
               const Tensor& tau, const Tensor& totals);

struct SavedModel {
  ModelShape shape;
  std::string loss;
  Standardisation features;
  TotalScale total;
  std::map<std::string, std::string> metadata;
  std::unique_ptr<Sequential> network;
};

// The checkpoint's bytes: the network's parameters and buffers, then the preprocessing tensors.
std::string saved_model_bytes(Sequential& network, const ModelShape& shape, const std::string& loss,
                              const Standardisation& features, const TotalScale& total,
                              std::map<std::string, std::string> metadata);
// Reads a model written by `empl_fit train`: `path` is its folder (model.ckpt inside) or the file.
SavedModel load_saved_model(const std::string& path);

}  // namespace empl::fit
