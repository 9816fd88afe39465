// empl_fit's network, losses and saved model; read fit_model.hpp first.
#include "apps/empl_fit/fit_model.hpp"

#include <charconv>
#include <filesystem>

#include "autograd/concat.hpp"
#include "autograd/elementwise.hpp"
#include "core/error.hpp"
#include "io/checkpoint.hpp"
#include "layers/activations.hpp"
#include "layers/batch_norm.hpp"
#include "layers/linear.hpp"
#include "layers/total_head.hpp"
#include "losses/cross_entropy.hpp"
#include "losses/earth_movers.hpp"
#include "losses/empl.hpp"
#include "losses/empl_expectile.hpp"
#include "losses/regression.hpp"

namespace empl::fit {
namespace {

// The smoothing of the smoothed EMPL: the paper's Bundesliga setting (section 3.2).
constexpr float kSmoothAlpha = 0.005f;

const FitLoss kFitLosses[] = {
    {"empl", true, [](Tape& t, const Var& p, const Tensor& q, const Tensor& tau) { return empl_loss(t, p, q, tau); }},
    {"sempl", true, [](Tape& t, const Var& p, const Tensor& q, const Tensor& tau) { return empl_loss(t, p, q, tau, kSmoothAlpha); }},
    {"expectile", true, [](Tape& t, const Var& p, const Tensor& q, const Tensor& tau) { return expectile_loss(t, p, q, tau); }},
    {"em1", false, [](Tape& t, const Var& p, const Tensor& q, const Tensor&) { return em1_loss(t, p, q); }},
    {"xe", false, [](Tape& t, const Var& p, const Tensor& q, const Tensor&) { return cross_entropy(t, p, q); }},
    {"mae", false, [](Tape& t, const Var& p, const Tensor& q, const Tensor&) { return mae_loss(t, p, q); }},
    {"mse", false, [](Tape& t, const Var& p, const Tensor& q, const Tensor&) { return mse_loss(t, p, q); }},
};

// The weight of the total count's loss beside the histogram's. The pinball loss of a standardised
// log total is about ten times the EMPL of a histogram, and its gradient reaches the shared hidden
// layers at that size too: at weight 1 it crowded out the histogram (urn example, 20,000 rows:
// quantile error 0.027 instead of 0.010, six times the crossings).
constexpr float kTotalWeight = 0.1f;

constexpr const char* kModelFile = "model.ckpt";

int64_t metadata_int(const std::map<std::string, std::string>& metadata, const std::string& key, const std::string& path) {
  const auto found = metadata.find(key);
  int64_t value = -1;
  if (found == metadata.end() ||
      std::from_chars(found->second.data(), found->second.data() + found->second.size(), value).ec != std::errc() || value < 0)
    fail(path, ": not an empl_fit model: metadata '", key, "' is ", found == metadata.end() ? "missing" : "'" + found->second + "'");
  return value;
}

std::string join(const std::vector<int64_t>& values) {
  std::string text;
  for (const int64_t v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
  return text;
}

}  // namespace

std::span<const FitLoss> fit_losses() { return kFitLosses; }

const FitLoss& fit_loss(const std::string& name) {
  for (const FitLoss& loss : kFitLosses)
    if (name == loss.name) return loss;
  fail("unknown loss '", name, "'");
}

std::vector<int64_t> parse_hidden(const std::string& text, const std::string& flag) {
  std::vector<int64_t> widths;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    int64_t width = 0;
    const auto [stop, error] = std::from_chars(text.data() + start, text.data() + end, width);
    if (error != std::errc() || stop != text.data() + end || width < 1 || width > 65536)
      fail(flag, ": '", text, "' is not a list of layer widths 1..65536 (e.g. 128,128)");
    widths.push_back(width);
    start = end + 1;
  }
  if (widths.size() > 16) fail(flag, ": '", text, "' has ", widths.size(), " layers, at most 16");
  return widths;
}

std::unique_ptr<Sequential> build_model(const ModelShape& shape, uint64_t seed) {
  auto model = std::make_unique<Sequential>();
  int64_t width = shape.features + 1;  // the features and τ
  uint64_t stream = 301;
  for (const int64_t hidden : shape.hidden) {
    model->add<Linear>(width, hidden, LinearOptions{.seed = seed, .stream = stream++});
    model->add<BatchNorm1d>(hidden, BatchNormOptions{.relu_input = true});
    width = hidden;
  }
  model->add<Linear>(width, shape.bins + (shape.counts ? 1 : 0), LinearOptions{.seed = seed, .stream = stream});
  if (shape.counts) model->add<SoftmaxWithTotal>();
  else model->add<Softmax>();
  model->pack();
  return model;
}

Var batch_loss(Tape& tape, const FitLoss& loss, const ModelShape& shape, const Var& output, const Tensor& labels,
               const Tensor& tau, const Tensor& totals) {
  if (!shape.counts) return loss.loss(tape, output, labels, tau);
  const Var histogram = loss.loss(tape, slice_columns(tape, output, 0, shape.bins), labels, tau);
  const Var total = pinball_loss(tape, slice_columns(tape, output, shape.bins, shape.bins + 1), totals, tau);
  return add(tape, histogram, mul_scalar(tape, total, kTotalWeight));
}

std::string saved_model_bytes(Sequential& network, const ModelShape& shape, const std::string& loss,
                              const Standardisation& features, const TotalScale& total,
                              std::map<std::string, std::string> metadata) {
  std::vector<NamedTensor> tensors = network.named_parameters();
  for (NamedTensor& buffer : network.named_buffers()) tensors.push_back(buffer);
  tensors.push_back({"preprocess.feature_mean", features.mean});
  tensors.push_back({"preprocess.feature_scale", features.scale});
  tensors.push_back({"preprocess.log_total", Tensor::from({2}, std::vector<float>{total.mean, total.scale})});
  metadata["app"] = "empl_fit";
  metadata["loss"] = loss;
  metadata["features"] = std::to_string(shape.features);
  metadata["bins"] = std::to_string(shape.bins);
  metadata["hidden"] = join(shape.hidden);
  metadata["counts"] = shape.counts ? "1" : "0";
  return checkpoint_bytes(tensors, metadata);
}

SavedModel load_saved_model(const std::string& path) {
  std::error_code error;
  const std::string file = std::filesystem::is_directory(path, error) ? (std::filesystem::path(path) / kModelFile).string() : path;
  Checkpoint checkpoint = load_checkpoint(file);
  const auto app = checkpoint.metadata.find("app");
  if (app == checkpoint.metadata.end() || app->second != "empl_fit")
    fail(file, ": checkpoint has app '", app == checkpoint.metadata.end() ? "(none)" : app->second, "', expected 'empl_fit'");
  SavedModel model;
  model.metadata = checkpoint.metadata;
  model.shape.features = metadata_int(checkpoint.metadata, "features", file);
  model.shape.bins = metadata_int(checkpoint.metadata, "bins", file);
  model.shape.counts = metadata_int(checkpoint.metadata, "counts", file) == 1;
  model.shape.hidden = parse_hidden(checkpoint.metadata.count("hidden") ? checkpoint.metadata.at("hidden") : "", file + ": hidden");
  if (model.shape.features < 1 || model.shape.bins < 1) fail(file, ": not an empl_fit model: ", model.shape.features, " features, ", model.shape.bins, " bins");
  model.loss = checkpoint.metadata.count("loss") ? checkpoint.metadata.at("loss") : "";
  fit_loss(model.loss);  // a loss this build knows
  model.network = build_model(model.shape, 1);
  std::vector<NamedTensor> destinations = model.network->named_parameters();
  for (NamedTensor& buffer : model.network->named_buffers()) destinations.push_back(buffer);
  model.features = {Tensor::empty({model.shape.features}), Tensor::empty({model.shape.features})};
  const Tensor total = Tensor::empty({2});
  destinations.push_back({"preprocess.feature_mean", model.features.mean});
  destinations.push_back({"preprocess.feature_scale", model.features.scale});
  destinations.push_back({"preprocess.log_total", total});
  restore(checkpoint, destinations, file);  // names, order and shapes must match: the shapes above
  model.total = {total[0], total[1]};
  for (int64_t f = 0; f < model.shape.features; ++f)
    if (!(model.features.scale[f] > 0.0f)) fail(file, ": feature ", f + 1, " has scale ", model.features.scale[f]);
  return model;
}

}  // namespace empl::fit
