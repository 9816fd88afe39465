// layers/module: naming parameters and buffers by walking the module tree, and pack(): every
// parameter value moved into one allocation and every gradient into another, so zero_grad() is
// one fill and an optimizer sees one flat span. Read layers/module.hpp first.
#include "layers/module.hpp"

#include <cstring>

#include "core/error.hpp"

namespace empl {

void Module::visit_parameters(const std::string&, const ParameterVisitor&) {}
void Module::visit_buffers(const std::string&, const BufferVisitor&) {}

std::vector<NamedTensor> Module::named_parameters() {
  std::vector<NamedTensor> out;
  visit_parameters("", [&](const std::string& name, Var& var) { out.push_back({name, var.value}); });
  return out;
}

std::vector<NamedTensor> Module::named_buffers() {
  std::vector<NamedTensor> out;
  visit_buffers("", [&](const std::string& name, Tensor& tensor) { out.push_back({name, tensor}); });
  return out;
}

int64_t Module::parameter_count() {
  int64_t count = 0;
  visit_parameters("", [&](const std::string&, Var& var) { count += var.value.numel(); });
  return count;
}

void Module::pack() {
  const int64_t total = parameter_count();
  Tensor values = Tensor::empty({total}, "packed parameters");
  Tensor gradients = Tensor::zeros({total}, "packed gradients");
  int64_t offset = 0;
  visit_parameters("", [&](const std::string&, Var& var) {
    const Shape shape = var.value.shape();
    Tensor value = values.view_at(offset, shape);
    value.copy_from(var.value);
    var = Var(value, gradients.view_at(offset, shape));
    offset += shape.numel();
  });
  packed_values_ = values;
  packed_gradients_ = gradients;
}

Tensor& Module::flat_values() {
  if (!packed()) fail(type_name(), ": the model is not packed; call pack() before training");
  return packed_values_;
}

Tensor& Module::flat_gradients() {
  if (!packed()) fail(type_name(), ": the model is not packed; call pack() before training");
  return packed_gradients_;
}

void Module::zero_grad() {
  if (packed()) {
    std::memset(packed_gradients_.data(), 0, static_cast<size_t>(packed_gradients_.numel()) * sizeof(float));
    return;
  }
  visit_parameters("", [](const std::string&, Var& var) {
    if (var.grad.defined()) var.grad.zero();
  });
}

}  // namespace empl
