// Fusion: rewriting a model into fewer, faster layers that give the same bits. A model is written
// as the paper draws it (Linear → ReLU → BatchNorm); one call here makes it fast. Read
// layers/batch_norm.hpp and layers/activations.hpp first.
//
// ReLU → BatchNorm becomes BatchNorm1d with relu_input: the two layers read x, write relu(x),
// read relu(x) back and write y; the fused layer reads x and writes y, applying max(x, 0) as it
// reads (backward: dx = 1[x > 0]·d relu(x), in the same pass as batch norm's own backward). Same
// expression, same order of operations, so the same bits forward and backward (tests/layers/
// test_fusion.cpp); the saving is one pass over each hidden activation each way, 6% of the toy
// example's training step. The tape then shows one node "relu_batch_norm" where it showed two.
#pragma once

#include "layers/sequential.hpp"

namespace empl {

// Replaces every ReLU directly followed by a BatchNorm1d (without relu_input) with that batch norm
// reading relu(x). Returns the number of pairs fused. Call it before pack(): the parameters of the
// modules after a removed ReLU are renamed one index down ("2.weight" becomes "1.weight"), so a
// checkpoint holds the fused model's names.
int fuse_relu_batch_norm(Sequential& model);

}  // namespace empl
