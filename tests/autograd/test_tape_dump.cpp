// dump_tape: the node list of a known tiny graph, exactly (autograd/tape_dump.hpp).
#include <doctest/doctest.h>

#include "autograd/elementwise.hpp"
#include "autograd/matmul.hpp"
#include "autograd/reduce.hpp"
#include "autograd/tape_dump.hpp"

using namespace empl;

TEST_CASE("dump_tape lists each node with its output shape and where each input came from") {
  Tape tape;
  const Var x(Tensor::zeros({4, 2}));           // data: no gradient
  const Var w = make_leaf(Tensor::zeros({2, 3}));  // a parameter, named below
  const Var b = make_leaf(Tensor::zeros({3}));     // a parameter left unnamed: "leaf"
  const Var h = relu(tape, add(tape, matmul(tape, x, w), b));
  const Var loss = mean(tape, mul(tape, h, h));   // one node, its two inputs the same value
  CHECK(dump_tape(tape, {{"0.weight", w.value}}) ==
        "#0 matmul [4,3] <- const [4,2], 0.weight [2,3]\n"
        "#1 add [4,3] <- #0, leaf [3]\n"
        "#2 relu [4,3] <- #1\n"
        "#3 mul [4,3] <- #2, #2\n"
        "#4 mean [] <- #3\n");
  CHECK(loss.requires_grad());
}

TEST_CASE("dump_tape of a tape that recorded nothing (no input needs a gradient) is empty") {
  Tape tape;
  const Var x(Tensor::zeros({2, 2}));
  relu(tape, x);
  CHECK(dump_tape(tape).empty());
}
