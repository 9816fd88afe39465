// The tape: reverse-mode automatic differentiation, recorded explicitly.
//
// Read after core/tensor.hpp. Each differentiable op, when it runs forward, appends one Node to
// the Tape: its inputs, its output, the tensors it saved for later, and a plain function pointer
// to its backward. The tape grows in execution order, so walking it backwards is already a
// topological order: backward() needs no recursion and no visited set (STYLE.md).
//
//   Tape tape;
//   Var y = relu(tape, matmul(tape, x, w));   // forward: records two nodes
//   Var loss = mean(tape, y);
//   tape.backward(loss);                      // seeds d(loss)/d(loss) = 1, walks the nodes back
//   tape.clear();                             // drops the nodes, keeps the memory for next step
//
// A Var is a value and (when a gradient flows to it) a gradient tensor of the same shape.
// Gradients accumulate (+=): a value used twice receives both contributions. Parameters are leaf
// Vars owned by a Module; their gradients persist across steps until zero_grad.
//
// Note [fresh gradients]: the gradient of a value made on the tape starts unwritten, not zeroed:
// zeroing every activation gradient is one more pass over memory per activation (5% of a toy
// step, and a pass that does not scale with threads). Walking backwards, the first node to reach
// an input's gradient finds it "fresh" (node.fresh_grad[i]). A node whose op set
// assigns_fresh_grads writes such a gradient with = (GEMM with beta 0) instead of +=; for any
// other op the tape zeroes it first. A gradient nothing reaches is zeroed before it is read.
//
// Note [the arena]: every tensor an op creates on the tape comes from Tape::alloc, which hands
// out views of buffers that the tape keeps across clear(). A training step asks for the same
// shapes in the same order every time, so from the second step on it allocates nothing. The
// price: a Var made on the tape is only valid until the next clear(); clone() what you keep.
#pragma once

#include <array>
#include <initializer_list>
#include <vector>

#include "autograd/shards.hpp"
#include "core/tensor.hpp"

namespace empl {

struct Var {
  Tensor value;
  Tensor grad;  // undefined when no gradient flows to this value (inputs, constants, no-grad)

  Var() = default;
  Var(Tensor value_, Tensor grad_ = {}) : value(std::move(value_)), grad(std::move(grad_)) {}

  bool requires_grad() const { return grad.defined(); }
  const Shape& shape() const { return value.shape(); }
};

// A leaf with a zeroed gradient of its own (for gradchecks and hand-made parameters).
Var make_leaf(const Tensor& value);

// One recorded op. `saved` and `scalars` hold whatever the backward needs (a mask, an axis, α).
struct Node {
  using BackwardFn = void (*)(Node&);
  const char* name = "";
  BackwardFn backward = nullptr;
  std::array<Var, 3> inputs{};
  Var output;
  std::array<Tensor, 3> saved{};
  std::array<float, 4> scalars{};
  // A non-tensor operand the backward reads, not owned, alive until backward has run (the graph
  // Laplacian of cheb_conv, owned by the model).
  const void* context = nullptr;
  // Note [fresh gradients]: set by the op when its backward honours fresh_grad, which the tape
  // fills just before calling backward (true: inputs[i].grad holds garbage, assign it).
  bool assigns_fresh_grads = false;
  std::array<bool, 3> fresh_grad{};
};

class Tape {
 public:
  Tape() = default;
  Tape(const Tape&) = delete;             // a tape owns its arena; share it by reference
  Tape& operator=(const Tape&) = delete;

  // Scratch memory from the arena (values unspecified), valid until clear().
  Tensor alloc(const Shape& shape);

  // The output of an op on `inputs`: its value from the arena, and a gradient when gradients are
  // enabled and any input requires one (unwritten until backward: Note [fresh gradients]).
  Var make_output(const Shape& shape, std::initializer_list<const Var*> inputs);

  // Appends a node when `output` requires a gradient (otherwise records nothing) and returns it,
  // so the op can fill `saved` and `scalars`. Inputs that need no gradient may be passed anyway:
  // backward functions check requires_grad() before writing.
  Node* record(const char* name, Node::BackwardFn backward, const Var& output,
               std::initializer_list<const Var*> inputs);

  // d(loss)/d(everything recorded). `loss` must be a one-element Var that requires a gradient.
  void backward(const Var& loss);
  // The same with a given seed for d(?)/d(output) (for gradcheck of non-scalar outputs).
  void backward(const Var& output, const Tensor& seed);

  // Forgets every node and hands the arena back for the next step (no memory is freed).
  void clear();

  bool grad_enabled() const { return grad_enabled_; }
  // The batch's shards (autograd/shards.hpp), read by the ops that sum over rows (linear, batch
  // norm); null (the default): one unsharded batch, as always. Not owned; the training loop sets
  // it for a run with --shards.
  void set_shards(const Shards* shards) { shards_ = shards; }
  const Shards* shards() const { return shards_; }
  size_t node_count() const { return nodes_.size(); }
  // The recorded nodes in execution order, for reading (autograd/tape_dump.hpp prints them).
  const std::vector<Node>& nodes() const { return nodes_; }
  size_t arena_buffers() const { return arena_.size(); }

  // While alive, ops on this tape record nothing and make no gradients (evaluation).
  class NoGrad {
   public:
    explicit NoGrad(Tape& tape) : tape_(tape), previous_(tape.grad_enabled_) { tape.grad_enabled_ = false; }
    ~NoGrad() { tape_.grad_enabled_ = previous_; }
    NoGrad(const NoGrad&) = delete;
    NoGrad& operator=(const NoGrad&) = delete;
   private:
    Tape& tape_;
    bool previous_;
  };

 private:
  void run_backward();
  bool take_pending(const Tensor& grad);

  std::vector<Node> nodes_;
  std::vector<const float*> unwritten_grads_;  // made by make_output, not yet reached by backward
  std::vector<Tensor> arena_;
  size_t arena_next_ = 0;
  bool grad_enabled_ = true;
  const Shards* shards_ = nullptr;
};

}  // namespace empl
