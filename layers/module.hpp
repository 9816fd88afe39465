// Module: a piece of a network with named parameters (learned) and buffers (kept, not learned,
// such as batch-norm running statistics), a training/evaluation mode, and a forward pass that
// records its ops on a Tape.
//
// Read after autograd/tape.hpp. A model is built from modules, then `pack()`ed: every parameter
// value moves into one contiguous allocation and every gradient into another (llm.c's layout),
// so zero_grad() is one memset, an optimizer sees one flat span, and a checkpoint writes one
// block. Parameter names follow PyTorch ("0.weight", "3.running_mean").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autograd/tape.hpp"

namespace empl {

class Module {
 public:
  virtual ~Module() = default;

  // x: [B, F_in] (or [B, V, F_in] where the module allows) -> the module's output.
  virtual Var forward(Tape& tape, const Var& x) = 0;
  virtual const char* type_name() const = 0;  // "Linear", "BatchNorm1d", ...

  void train() { set_training(true); }
  void eval() { set_training(false); }
  bool training() const { return training_; }
  virtual void set_training(bool training) { training_ = training; }

  // Calls visit(name, var) for every parameter, and visit(name, tensor) for every buffer, of this
  // module and its children, names prefixed with `prefix`.
  using ParameterVisitor = std::function<void(const std::string&, Var&)>;
  using BufferVisitor = std::function<void(const std::string&, Tensor&)>;
  virtual void visit_parameters(const std::string& prefix, const ParameterVisitor& visit);
  virtual void visit_buffers(const std::string& prefix, const BufferVisitor& visit);

  std::vector<NamedTensor> named_parameters();  // values, in a fixed order
  std::vector<NamedTensor> named_buffers();
  int64_t parameter_count();

  // Moves every parameter into one allocation of values and one of gradients (zeroed). Call once,
  // after building the model and before training; it keeps the current values.
  void pack();
  bool packed() const { return packed_values_.defined(); }
  // The packed buffers: all values, all gradients ([P]). Throws when not packed.
  Tensor& flat_values();
  Tensor& flat_gradients();
  void zero_grad();

 protected:
  bool training_ = true;

 private:
  Tensor packed_values_, packed_gradients_;
};

}  // namespace empl
