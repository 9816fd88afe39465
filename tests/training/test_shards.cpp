// Batch shards (autograd/shards.hpp) without MPI: the fixed tree's order, worked out by hand, and
// two ranks emulated by two threads (a RankSum that meets at a barrier) giving the gradients and
// batch-norm statistics of one process, bit for bit, on the toy model (linear + batch norm).
#include <doctest/doctest.h>

#include <barrier>
#include <cstring>
#include <thread>
#include <vector>

#include "apps/toy_urn/toy_model.hpp"
#include "apps/toy_urn/urn_data.hpp"
#include "autograd/shards.hpp"
#include "core/parallel.hpp"

using namespace empl;
using namespace empl::toy_urn;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.numel())) == 0;
}

// Two "ranks" in one process: each writes its subtree sum into its slot, both add lower + higher.
class TwoThreadRanks {
 public:
  class Rank : public RankSum {
   public:
    Rank(TwoThreadRanks& all, int rank) : all_(all), rank_(rank) {}
    void sum_subtrees(float* data, int64_t n) override {
      all_.slots_[rank_].assign(data, data + n);
      all_.meet_.arrive_and_wait();
      for (int64_t i = 0; i < n; ++i) data[i] = all_.slots_[0][i] + all_.slots_[1][i];
      all_.meet_.arrive_and_wait();  // both have read before either writes again
    }

   private:
    TwoThreadRanks& all_;
    int rank_;
  };

 private:
  std::vector<float> slots_[2];
  std::barrier<> meet_{2};
};

struct StepResult {
  Tensor gradients, running;  // the packed gradients, and every batch-norm buffer
};

// One toy training step on rows [first, first + rows) of a batch of 4 shards.
StepResult toy_step(int64_t first, int64_t rows, const Shards& shards, float seed_value) {
  auto model = build_model(5, 16);
  Tensor inputs = Tensor::empty({rows, kFeatures}), labels = Tensor::empty({rows, kBins}), tau = Tensor::empty({rows, 1});
  make_batch(11, 2, inputs, labels, tau, -1.0f, first);
  Tape tape;
  tape.set_shards(&shards);
  const Var loss = training_loss("empl", tape, model->forward(tape, Var(inputs)), labels, tau);
  model->zero_grad();
  tape.backward(loss, Tensor::full(loss.shape(), seed_value));
  Tensor gradients = model->flat_gradients().clone();
  if (shards.ranks != nullptr) shards.ranks->sum_subtrees(gradients.data(), gradients.numel());
  std::vector<float> running;
  for (const NamedTensor& buffer : model->named_buffers())
    running.insert(running.end(), buffer.tensor.data(), buffer.tensor.data() + buffer.tensor.numel());
  return {gradients, Tensor::from({static_cast<int64_t>(running.size())}, running)};
}

}  // namespace

TEST_CASE("shards: the tree adds the left half to the right half, recursively") {
  // Three rows: 1 + (1e8 + (−1e8)) = 1, where adding in row order gives (1 + 1e8) − 1e8 = 0.
  std::vector<float> three = {1.0f, 1e8f, -1e8f};
  float out = -1.0f;
  tree_sum(three.data(), 3, 1, &out);
  CHECK(out == 1.0f);
  // Four rows: (1e8 + 1) + (−1e8 + 1) = 1e8 − 1e8 = 0 (each 1 is lost), where the row order gives 1.
  std::vector<float> four = {1e8f, 1.0f, -1e8f, 1.0f};
  tree_sum(four.data(), 4, 1, &out);
  CHECK(out == 0.0f);
}

TEST_CASE("shards: two ranks (two threads) give one process's gradients and batch-norm statistics") {
  const Shards one{.total = 4, .local = 4, .ranks = nullptr};
  const StepResult whole = toy_step(0, 64, one, 1.0f);

  TwoThreadRanks ranks;
  TwoThreadRanks::Rank rank0(ranks, 0), rank1(ranks, 1);
  const Shards half0{.total = 4, .local = 2, .ranks = &rank0}, half1{.total = 4, .local = 2, .ranks = &rank1};
  const int before = num_threads();
  set_num_threads(1);  // two "ranks" of one thread each
  StepResult first, second;
  std::thread other([&] { second = toy_step(32, 32, half1, 0.5f); });
  first = toy_step(0, 32, half0, 0.5f);
  other.join();
  set_num_threads(before);
  CHECK(same_bits(first.gradients, whole.gradients));
  CHECK(same_bits(second.gradients, whole.gradients));
  CHECK(same_bits(first.running, whole.running));
  CHECK(same_bits(second.running, whole.running));
}

TEST_CASE("shards: one process with 4 shards gives the same gradients on 1 and 2 threads") {
  const Shards one{.total = 4, .local = 4, .ranks = nullptr};
  const int before = num_threads();
  set_num_threads(1);  // shards of 1024 rows: several batch-norm chunks, GEMMs split over threads
  const StepResult single = toy_step(0, 4096, one, 1.0f);
  set_num_threads(2);
  const StepResult two = toy_step(0, 4096, one, 1.0f);
  set_num_threads(before);
  CHECK(same_bits(single.gradients, two.gradients));
}
