// empl_bench: the workloads of the performance issue, timed in this process.
//
//   empl_bench --case toy_step|bimodal_step|linear_fwd_bwd|sgemm_only|empl|chebconv_nside64|
//                     chebconv_nside128|spmm_nside128|triad|cheb_block|graph_hierarchy_nside256
//              --threads N [--reps R]
//   empl_bench --blas-core
//
// Each case warms up, then times R repetitions and prints one line
//   case=<name> threads=<n> median_ms=<m> p10_ms=<a> p90_ms=<b> rss_mb=<peak resident memory>
// bench/compare runs it beside bench/torch_bench.py and prints the ratios.
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include <cblas.h>
#include <cxxopts.hpp>

#include "apps/bimodal/bimodal_data.hpp"
#include "apps/bimodal/bimodal_model.hpp"
#include "apps/common/run_app.hpp"
#include "apps/toy_urn/toy_model.hpp"
#include "apps/toy_urn/urn_data.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "graph/laplacian.hpp"
#include "graph/sparse_matmul.hpp"
#include "autograd/elementwise.hpp"
#include "layers/batch_norm.hpp"
#include "layers/cheb_conv.hpp"
#include "layers/healpix_pool.hpp"
#include "layers/linear.hpp"
#include "losses/empl.hpp"
#include "optim/adam.hpp"
#include "tests/support/heap_allocations.hpp"

using namespace empl;

namespace {

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

using Clock = std::chrono::steady_clock;

double milliseconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

double median_of(std::vector<double>& values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The time of each phase of a training step, one entry per step (capacity reserved up front, so
// that recording allocates nothing inside the timed loop).
struct PhaseTimes {
  std::vector<double> data, forward, backward, optimizer;
  explicit PhaseTimes(size_t steps) {
    for (auto* phase : {&data, &forward, &backward, &optimizer}) phase->reserve(steps);
  }
  void clear() {
    for (auto* phase : {&data, &forward, &backward, &optimizer}) phase->clear();
  }
};

// Runs `step` warmup times, then times it reps times, and prints one line (with the median of each
// phase when `phases` is given; the step fills it).
void report(const std::string& name, int threads, int warmup, int reps, const std::function<void()>& step,
            PhaseTimes* phases = nullptr) {
  for (int i = 0; i < warmup; ++i) step();
  if (phases) phases->clear();
  std::vector<double> ms(static_cast<size_t>(reps));
  const int64_t allocations_before = heap_allocations();
  for (int i = 0; i < reps; ++i) {
    const auto start = Clock::now();
    step();
    ms[static_cast<size_t>(i)] = milliseconds(start, Clock::now());
  }
  const double allocations = static_cast<double>(heap_allocations() - allocations_before) / reps;
  std::sort(ms.begin(), ms.end());
  std::printf("case=%s threads=%d median_ms=%.4f p10_ms=%.4f p90_ms=%.4f rss_mb=%.1f allocs_per_step=%.2f", name.c_str(),
              threads, ms[ms.size() / 2], ms[ms.size() / 10], ms[ms.size() * 9 / 10], peak_rss_mb(), allocations);
  if (phases)
    std::printf(" data_ms=%.4f forward_ms=%.4f backward_ms=%.4f optimizer_ms=%.4f", median_of(phases->data),
                median_of(phases->forward), median_of(phases->backward), median_of(phases->optimizer));
  std::printf("\n");
}

// One training step of an app: batch generation, forward with the loss, backward, Adam; each
// phase's time goes to `phases`.
template <typename MakeBatch, typename Loss>
std::function<void()> training_step(Sequential& model, Adam& adam, Tape& tape, MakeBatch make_batch, Loss loss,
                                    PhaseTimes& phases) {
  return [&model, &adam, &tape, make_batch, loss, &phases, step = int64_t{0}]() mutable {
    const auto start = Clock::now();
    const Var x = make_batch(step++);
    const auto batch_made = Clock::now();
    const Var l = loss(tape, x);
    const auto forward_done = Clock::now();
    model.zero_grad();
    tape.backward(l);
    const auto backward_done = Clock::now();
    adam.step(1e-3f);
    tape.clear();
    phases.data.push_back(milliseconds(start, batch_made));
    phases.forward.push_back(milliseconds(batch_made, forward_done));
    phases.backward.push_back(milliseconds(forward_done, backward_done));
    phases.optimizer.push_back(milliseconds(backward_done, Clock::now()));
  };
}

int run(int argc, char** argv) {
  cxxopts::Options parser("empl_bench", "empl's side of bench/compare");
  parser.add_options()("case", "toy_step, bimodal_step, linear_fwd_bwd, sgemm_only or empl", cxxopts::value<std::string>())
      ("threads", "threads", cxxopts::value<int>()->default_value("1"))
      ("reps", "timed repetitions", cxxopts::value<int>()->default_value("200"))
      ("blas-core", "print the kernel family OpenBLAS chose for this CPU, and exit");
  const auto parsed = parser.parse(argc, argv);
  if (parsed.count("blas-core")) {
    std::printf("%s\n", openblas_get_corename());
    return 0;
  }
  if (!parsed.count("case")) fail("give --case");
  const std::string name = parsed["case"].as<std::string>();
  const int threads = parsed["threads"].as<int>(), reps = parsed["reps"].as<int>();
  if (reps < 10) fail("--reps must be at least 10, got ", reps);
  set_num_threads(threads);
  constexpr int64_t kBatch = 2048;
  Tape tape;
  PhaseTimes phases(static_cast<size_t>(reps) + 20);

  if (name == "toy_step") {
    auto model = toy_urn::build_model(1);
    Adam adam(model->flat_values(), model->flat_gradients());
    Tensor inputs = Tensor::empty({kBatch, toy_urn::kFeatures}), labels = Tensor::empty({kBatch, toy_urn::kBins}),
           tau = Tensor::empty({kBatch, 1});
    report(name, threads, 20, reps, training_step(*model, adam, tape,
        [&](int64_t step) { toy_urn::make_batch(1, static_cast<uint64_t>(step), inputs, labels, tau); return Var(inputs); },
        [&](Tape& t, const Var& x) { return empl_loss(t, model->forward(t, x), labels, tau); }, phases), &phases);
  } else if (name == "bimodal_step") {
    auto model = bimodal::build_model(1, "empl");
    Adam adam(model->flat_values(), model->flat_gradients());
    Tensor inputs = Tensor::empty({kBatch, bimodal::kFeatures}), labels = Tensor::empty({kBatch, bimodal::kBins}),
           tau = Tensor::empty({kBatch, 1});
    report(name, threads, 20, reps, training_step(*model, adam, tape,
        [&](int64_t step) { bimodal::make_batch(1, static_cast<uint64_t>(step), inputs, labels, tau); return Var(inputs); },
        [&](Tape& t, const Var& x) { return empl_loss(t, model->forward(t, x), labels, tau); }, phases), &phases);
  } else if (name == "linear_fwd_bwd" || name == "sgemm_only") {
    // The toy network's largest layer, 128 -> 128 at batch 2048: forward, then backward to the
    // input, the weight and the bias.
    Linear layer(128, 128, {.seed = 1});
    Var x = make_leaf(Tensor::full({kBatch, 128}, 0.5f));
    Tensor seed = Tensor::full({kBatch, 128}, 1e-3f);
    if (name == "linear_fwd_bwd") {
      report(name, threads, 20, reps, [&] {
        const Var y = layer.forward(tape, x);
        tape.backward(y, seed);
        tape.clear();
      });
    } else {
      // The same three products as raw cblas_sgemm calls (no bias, no tape), with OpenBLAS's own
      // threads at the same count: the floor a plain BLAS user gets.
      openblas_set_num_threads(threads);
      Tensor y = Tensor::empty({kBatch, 128});
      const float* w = layer.weight.value.data();
      report(name, threads, 20, reps, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kBatch, 128, 128, 1.0f, x.value.data(), 128, w, 128, 0.0f, y.data(), 128);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, 128, 128, kBatch, 1.0f, x.value.data(), 128, seed.data(), 128, 1.0f,
                    layer.weight.grad.data(), 128);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, kBatch, 128, 128, 1.0f, seed.data(), 128, w, 128, 1.0f, x.grad.data(), 128);
      });
    }
  } else if (name == "empl") {
    // The loss alone on [2048, 18] (the Bundesliga shape): forward and backward.
    Tensor predicted = Tensor::empty({kBatch, 18}), target = Tensor::empty({kBatch, 18}), tau = Tensor::empty({kBatch, 1});
    fill_uniform(predicted, 0.1f, 1.0f, 1, 1);
    fill_uniform(target, 0.1f, 1.0f, 1, 2);
    fill_uniform(tau, 0.0f, 1.0f, 1, 3);
    for (int64_t r = 0; r < kBatch; ++r) {
      float total = 0;
      for (int j = 0; j < 18; ++j) total += target[r * 18 + j];
      for (int j = 0; j < 18; ++j) target[r * 18 + j] /= total;
    }
    Var p = make_leaf(predicted);
    report(name, threads, 50, reps, [&] {
      tape.backward(empl_loss(tape, p, target, tau));
      tape.clear();
    });
  } else if (name == "chebconv_nside64" || name == "chebconv_nside128") {
    // ChebConv K = 6, 32 -> 32, batch 8 (the case): forward, then backward to x, W, b.
    const GraphLevel level = build_graph_level(name == "chebconv_nside64" ? 64 : 128);
    const int64_t nodes = level.laplacian.rows;
    ChebConv conv(level.laplacian, 6, 32, 32, {.seed = 1});
    Tensor input = Tensor::empty({nodes, 8, 32});
    fill_normal(input, 0.0f, 1.0f, 1, 1);
    Var x = make_leaf(input);
    Tensor seed = Tensor::full({nodes, 8, 32}, 1e-3f);
    report(name, threads, 5, reps, [&] {
      const Var y = conv.forward(tape, x);
      tape.backward(y, seed);
      tape.clear();
    });
  } else if (name == "spmm_nside128") {
    // One L~·X, X [V, 256]; the bytes moved are the matrix (values, 32-bit indices, 64-bit row
    // pointers), X read once and Y written once.
    const GraphLevel level = build_graph_level(128);
    const CsrMatrix<float>& l = level.laplacian;
    Tensor x = Tensor::empty({l.rows, 256}), y = Tensor::empty({l.rows, 256});
    fill_normal(x, 0.0f, 1.0f, 1, 2);
    const double bytes = static_cast<double>(l.nonzeros()) * 8.0 + static_cast<double>(l.rows + 1) * 8.0 +
                         2.0 * static_cast<double>(x.numel()) * 4.0;
    std::vector<double> ms;
    for (int i = 0; i < reps + 5; ++i) {
      const auto start = Clock::now();
      sparse_matmul(l, x, y);
      if (i >= 5) ms.push_back(milliseconds(start, Clock::now()));
    }
    const double median = median_of(ms);
    std::printf("case=%s threads=%d median_ms=%.4f gbps=%.2f\n", name.c_str(), threads, median, bytes / (median * 1e6));
  } else if (name == "triad") {
    // STREAM's triad a = b + s·c on 3 × 64 MB, parallel in the same chunks as our kernels: the
    // bandwidth this machine gives a plain streaming loop (12 bytes per element, three floats;
    // the write-allocate read of a is not counted, as in STREAM).
    const int64_t n = int64_t{16} << 20;
    Tensor a = Tensor::zeros({n}), b = Tensor::full({n}, 1.0f), c = Tensor::full({n}, 2.0f);
    std::vector<double> ms;
    for (int i = 0; i < reps + 3; ++i) {
      const auto start = Clock::now();
      parallel_for(n, kDefaultGrain * 4, [&](int64_t begin, int64_t end) {
        float* pa = a.data();
        const float* pb = b.data();
        const float* pc = c.data();
        for (int64_t k = begin; k < end; ++k) pa[k] = pb[k] + 3.0f * pc[k];
      });
      if (i >= 3) ms.push_back(milliseconds(start, Clock::now()));
    }
    const double median = median_of(ms);
    std::printf("case=%s threads=%d median_ms=%.4f gbps=%.2f\n", name.c_str(), threads, median,
                12.0 * static_cast<double>(n) / (median * 1e6));
  } else if (name == "cheb_block") {
    // One conv block in the paper's order, ChebConv -> max pool -> batch norm (no scale/shift) ->
    // ReLU, nside 32, batch 8, 16 -> 32, forward and backward: allocations per steady-state step.
    const GraphLevel level = build_graph_level(32);
    ChebConv conv(level.laplacian, 5, 16, 32, {.seed = 1});
    HealpixPool pool(PoolMode::Max);
    BatchNorm1d norm(32, {.momentum = 0.1f, .eps = 1e-5f, .affine = false});
    Tensor input = Tensor::empty({level.laplacian.rows, 8, 16});
    fill_normal(input, 0.0f, 1.0f, 1, 3);
    Var x = make_leaf(input);
    Tensor seed = Tensor::full({level.laplacian.rows / 4, 8, 32}, 1e-3f);
    report(name, threads, 5, reps, [&] {
      const Var y = relu(tape, norm.forward(tape, pool.forward(tape, conv.forward(tape, x))));
      tape.backward(y, seed);
      tape.clear();
    });
  } else if (name == "graph_hierarchy_nside256") {
    report(name, threads, 1, reps, [&] { (void)build_graph_hierarchy(256); });
  } else {
    fail("unknown --case '", name, "'");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_app("empl_bench", argc, argv, run); }
