// layers/sequential: y = f_n(… f_1(x)), child i's parameters named "i.<name>"; taking a module
// out (layers/fusion.cpp) renames the ones after it. No equation of its own.
// Read layers/sequential.hpp and layers/module.hpp first.
#include "layers/sequential.hpp"

#include "core/error.hpp"

namespace empl {

std::unique_ptr<Module> Sequential::remove(size_t i) {
  if (i >= modules_.size()) fail("Sequential::remove: index ", i, " of ", modules_.size(), " modules");
  std::unique_ptr<Module> module = std::move(modules_[i]);
  modules_.erase(modules_.begin() + static_cast<std::ptrdiff_t>(i));
  return module;
}

Var Sequential::forward(Tape& tape, const Var& x) {
  Var h = x;
  for (auto& module : modules_) h = module->forward(tape, h);
  return h;
}

void Sequential::set_training(bool training) {
  training_ = training;
  for (auto& module : modules_) module->set_training(training);
}

void Sequential::visit_parameters(const std::string& prefix, const ParameterVisitor& visit) {
  for (size_t i = 0; i < modules_.size(); ++i) modules_[i]->visit_parameters(prefix + std::to_string(i) + ".", visit);
}

void Sequential::visit_buffers(const std::string& prefix, const BufferVisitor& visit) {
  for (size_t i = 0; i < modules_.size(); ++i) modules_[i]->visit_buffers(prefix + std::to_string(i) + ".", visit);
}

std::string Sequential::summary() {
  std::string text;
  for (size_t i = 0; i < modules_.size(); ++i)
    text += std::to_string(i) + " " + modules_[i]->type_name() + " " + std::to_string(modules_[i]->parameter_count()) + "\n";
  return text;
}

}  // namespace empl
