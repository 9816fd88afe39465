// Sequential: modules applied one after another; child i's parameters are named "i.<name>".
//
//   Sequential mlp;
//   mlp.add<Linear>(2, 128, LinearOptions{.seed = seed, .stream = 1});
//   mlp.add<ReLU>();
//   mlp.pack();
// Read after layers/module.hpp.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "layers/module.hpp"

namespace empl {

class Sequential : public Module {
 public:
  template <typename M, typename... Args>
  M& add(Args&&... args) {
    auto module = std::make_unique<M>(std::forward<Args>(args)...);
    M& reference = *module;
    reference.set_training(training_);
    modules_.push_back(std::move(module));
    return reference;
  }

  Var forward(Tape& tape, const Var& x) override;
  const char* type_name() const override { return "Sequential"; }
  void set_training(bool training) override;
  void visit_parameters(const std::string& prefix, const ParameterVisitor& visit) override;
  void visit_buffers(const std::string& prefix, const BufferVisitor& visit) override;

  size_t size() const { return modules_.size(); }
  Module& operator[](size_t i) { return *modules_[i]; }
  // Takes module i out (the later ones move up one index, and so do their parameter names).
  std::unique_ptr<Module> remove(size_t i);
  // One line per module with its parameter count, e.g. "0 Linear 384".
  std::string summary();

 private:
  std::vector<std::unique_ptr<Module>> modules_;
};

}  // namespace empl
