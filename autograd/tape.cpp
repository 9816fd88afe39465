// autograd/tape: recording nodes, the arena of buffers reused across steps, and backward(): the
// nodes in reverse order, each node's backward adding d(loss)/d(input) = d(loss)/d(output) ·
// ∂output/∂input into its inputs' gradients. Read autograd/tape.hpp first (its two Notes).
#include "autograd/tape.hpp"

#include "core/error.hpp"

namespace empl {
namespace {

// Whether input i's gradient buffer is also another input's gradient (mul(x, x)).
bool is_two_inputs(const Node& node, size_t i) {
  for (size_t j = 0; j < node.inputs.size(); ++j)
    if (j != i && node.inputs[j].grad.defined() && node.inputs[j].grad.data() == node.inputs[i].grad.data()) return true;
  return false;
}

}  // namespace

Var make_leaf(const Tensor& value) { return Var(value, Tensor::zeros(value.shape(), "gradient")); }

Tensor Tape::alloc(const Shape& shape) {
  if (arena_next_ == arena_.size()) {
    arena_.push_back(Tensor::empty(shape, "tape buffer"));
  } else if (arena_[arena_next_].capacity() < shape.numel()) {
    // A larger request than last step at this position (a bigger batch): grow this buffer once.
    arena_[arena_next_] = Tensor::empty(shape, "tape buffer");
  }
  return arena_[arena_next_++].view_prefix(shape);
}

Var Tape::make_output(const Shape& shape, std::initializer_list<const Var*> inputs) {
  bool needs_grad = false;
  if (grad_enabled_)
    for (const Var* input : inputs) needs_grad = needs_grad || input->requires_grad();
  Var output(alloc(shape));
  if (needs_grad) {
    output.grad = alloc(shape);
    unwritten_grads_.push_back(output.grad.data());  // Note [fresh gradients]
  }
  return output;
}

Node* Tape::record(const char* name, Node::BackwardFn backward, const Var& output,
                   std::initializer_list<const Var*> inputs) {
  if (!output.requires_grad()) return nullptr;
  if (inputs.size() > 3) fail("Tape::record: op ", name, " has ", inputs.size(), " inputs, at most 3");
  Node& node = nodes_.emplace_back();
  node.name = name;
  node.backward = backward;
  node.output = output;
  size_t slot = 0;
  for (const Var* input : inputs) node.inputs[slot++] = *input;
  return &node;
}

void Tape::backward(const Var& loss) {
  if (loss.value.numel() != 1)
    fail("backward: the loss must have one element, got shape ", loss.shape(),
         "\nHINT: reduce it first, e.g. with mean()");
  if (!loss.requires_grad())
    fail("backward: the loss does not require a gradient (no parameter or leaf reaches it,"
         " or it was computed under Tape::NoGrad)");
  take_pending(loss.grad);  // written now, with the seed
  Tensor seed = loss.grad;  // a handle to the same buffer: filled in place, nothing allocated
  seed.fill(1.0f);         // d(loss)/d(loss)
  run_backward();
}

void Tape::backward(const Var& output, const Tensor& seed) {
  if (!output.requires_grad())
    fail("backward: the output does not require a gradient (no parameter or leaf reaches it,"
         " or it was computed under Tape::NoGrad)");
  check_same_shape("backward (seed)", output.value, seed);
  take_pending(output.grad);
  Tensor output_grad = output.grad;
  output_grad.copy_from(seed);
  run_backward();
}

void Tape::run_backward() {
  // The nodes were appended in execution order: reversed, every node comes after all the nodes
  // that consume its output, so its output gradient is complete when its backward runs.
  for (auto node = nodes_.rbegin(); node != nodes_.rend(); ++node) {
    // Note [fresh gradients]. An output nothing consumed has a zero gradient.
    if (take_pending(node->output.grad)) node->output.grad.zero();
    for (size_t i = 0; i < node->inputs.size(); ++i) {
      Tensor grad = node->inputs[i].grad;  // a handle to the buffer
      node->fresh_grad[i] = take_pending(grad);
      // The tape zeroes a fresh gradient when the op will add into it: an op that has not opted
      // in, or a buffer that is two inputs of this node (written twice, so it cannot be assigned).
      if (node->fresh_grad[i] && (!node->assigns_fresh_grads || is_two_inputs(*node, i))) {
        grad.zero();
        node->fresh_grad[i] = false;
      }
    }
    node->backward(*node);
  }
}

// Removes `grad` from the unwritten list; true if it was there (a gradient buffer is known by its
// first element, which its views, like a reshape, share). The list holds one entry per op and
// shrinks as the backward walks, so a linear search costs nothing next to the kernels.
bool Tape::take_pending(const Tensor& grad) {
  if (!grad.defined()) return false;
  for (size_t i = 0; i < unwritten_grads_.size(); ++i) {
    if (unwritten_grads_[i] != grad.data()) continue;
    unwritten_grads_[i] = unwritten_grads_.back();
    unwritten_grads_.pop_back();
    return true;
  }
  return false;
}

void Tape::clear() {
  nodes_.clear();  // keeps the vector's capacity
  unwritten_grads_.clear();
  arena_next_ = 0;
}

}  // namespace empl
