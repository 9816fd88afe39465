// layers/fusion: the toy model as the paper draws it (Linear → ReLU → BatchNorm) and the fused one
// the app trains give the same bits, step after step; and what fuse_relu_batch_norm rewrites.
#include <doctest/doctest.h>

#include <cstring>

#include "apps/toy_urn/toy_model.hpp"
#include "apps/toy_urn/urn_data.hpp"
#include "layers/activations.hpp"
#include "layers/batch_norm.hpp"
#include "layers/fusion.hpp"
#include "layers/linear.hpp"
#include "losses/empl.hpp"
#include "optim/adam.hpp"

using namespace empl;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), static_cast<size_t>(a.numel()) * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("fuse_relu_batch_norm folds each ReLU → BatchNorm pair, and only those") {
  Sequential model;
  model.add<Linear>(2, 4, LinearOptions{.seed = 1});
  model.add<ReLU>();
  model.add<BatchNorm1d>(4);
  model.add<BatchNorm1d>(4);  // no ReLU before it: left alone
  model.add<ReLU>();          // no batch norm after it: left alone
  CHECK(fuse_relu_batch_norm(model) == 1);
  CHECK(model.summary() == "0 Linear 12\n1 BatchNorm1d 8\n2 BatchNorm1d 8\n3 ReLU 0\n");
  CHECK(dynamic_cast<BatchNorm1d&>(model[1]).relu_input());
  CHECK(!dynamic_cast<BatchNorm1d&>(model[2]).relu_input());
  CHECK(fuse_relu_batch_norm(model) == 0);  // nothing left to fuse
}

TEST_CASE("the toy model fused and as the paper draws it give the same bits over three Adam steps") {
  auto plain = toy_urn::build_model(7, 16, false), fused = toy_urn::build_model(7, 16, true);
  CHECK(plain->size() == 8);
  CHECK(fused->size() == 6);
  REQUIRE(same_bits(plain->flat_values(), fused->flat_values()));  // the same initial weights, in order
  Adam adam_plain(plain->flat_values(), plain->flat_gradients()), adam_fused(fused->flat_values(), fused->flat_gradients());
  const int64_t batch = 64;
  Tensor inputs = Tensor::empty({batch, toy_urn::kFeatures}), labels = Tensor::empty({batch, toy_urn::kBins});
  Tensor tau = Tensor::empty({batch, 1});
  Tape tape;
  for (uint64_t step = 0; step < 3; ++step) {
    toy_urn::make_batch(3, step, inputs, labels, tau);
    float losses[2];
    int which = 0;
    for (auto [model, adam] : {std::pair{plain.get(), &adam_plain}, std::pair{fused.get(), &adam_fused}}) {
      model->zero_grad();
      const Var loss = empl_loss(tape, model->forward(tape, Var(inputs)), labels, tau);
      tape.backward(loss);
      losses[which++] = loss.value[0];
      tape.clear();
      adam->step(1e-2f);
    }
    INFO("step ", step);
    CHECK(std::memcmp(&losses[0], &losses[1], sizeof(float)) == 0);
    CHECK(same_bits(plain->flat_gradients(), fused->flat_gradients()));
    CHECK(same_bits(plain->flat_values(), fused->flat_values()));
  }
  // And the running statistics the evaluation uses.
  const auto plain_buffers = plain->named_buffers(), fused_buffers = fused->named_buffers();
  REQUIRE(plain_buffers.size() == fused_buffers.size());
  for (size_t i = 0; i < plain_buffers.size(); ++i) CHECK(same_bits(plain_buffers[i].tensor, fused_buffers[i].tensor));
}
