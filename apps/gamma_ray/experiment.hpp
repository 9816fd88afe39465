// Training and evaluation of the gamma-ray networks (paper Table 1, Fig. 4): presets, batches,
// the six training losses, predictions at a list of τ levels, the table's metrics, and the
// batch norms measured again for a network evaluated with its weights' average.
// Read network.hpp and dataset.hpp first; main.cpp turns this into subcommands.
//
// Metrics (q: density histograms, Q: their cumulative sums, N = 21 bins, mean over the test maps b):
//   mae = mean_b,j |q̃ − q|            mse = mean_b,j (q̃ − q)²
//   em1 = mean_b,j |Q̃ − Q|            em2 = sqrt(mean_b,j (Q̃ − Q)²)
//   intersection = mean_b Σ_j min(q̃, q)   (a fraction; the paper prints %)
// The paper's table cannot come from these alone (its MSE exceeds its MAE; its EM1 exceeds
// 21 × its MAE, which |ΔQ_j| ≤ Σ_k |Δq_k| forbids for per-bin means), so the alternatives below
// are computed too (AltMetrics) and compared with the paper's ratios.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "apps/gamma_ray/dataset.hpp"
#include "apps/gamma_ray/network.hpp"
#include "core/tensor.hpp"

namespace empl::gamma_ray {

struct Preset {
  std::string name;
  int64_t nside = 16;
  std::vector<int64_t> features;
  std::vector<int64_t> dense = {2048, 512};
  int64_t batch = 64;
  int64_t steps = 25000;
  int64_t simulated = 312500;  // maps drawn before the cuts
};

// "paper" or "small"; throws naming the preset otherwise.
Preset preset(const std::string& name);

inline constexpr const char* kLosses[] = {"mae", "mse", "xe", "empl", "sempl", "em1"};
bool is_loss(const std::string& name);
// empl and sempl train over τ ~ U(0, 1); the others see τ = 0.5 always.
bool is_quantile_loss(const std::string& name);
inline constexpr float kSmoothingAlpha = 0.001f;

// The paper's schedule, lr = 5e-4 · exp(−2.5e-4 · step); --learning-rate replaces the 5e-4.
inline constexpr float kLearningRate = 5e-4f;
inline constexpr double kDecayPerStep = 2.5e-4;

// The inputs of rows `rows` of the dataset at levels `taus` (one per row): maps [V, B, 1]
// node-major, each divided by its total; scalars [B, 2] = (log10 total, (τ − 0.5)·12); labels
// [B, 21] when not null. Tensors are (re)allocated when their shape differs.
void fill_batch(const Dataset& data, std::span<const int64_t> rows, std::span<const float> taus, Tensor& maps,
                Tensor& scalars, Tensor* labels);

// Batch `step` of a run: rows uniform over the training split and τ per map, from
// Rng(seed, kBatchStream, step) alone (a resumed run sees the same batches).
void draw_batch(const Dataset& data, uint64_t seed, int64_t step, int64_t batch, bool quantile, std::vector<int64_t>& rows,
                std::vector<float>& taus);

// Measures the batch norms' running statistics again from `batches` training batches, the weights
// held fixed (rows drawn as draw_batch does, from a stream of their own; τ enters after the last
// batch norm, so none is drawn). For a network evaluated with its weights' average
// (optim/weight_average.hpp): the statistics gathered in training belong to the moving weights,
// not to their average. With momentum 0.1 the old statistics keep a share 0.9^n after n batches
// (3e-5 at the app's 100).
void measure_batch_norm(GammaNetwork& model, const Dataset& data, uint64_t seed, int64_t batch, int64_t batches);
inline constexpr int64_t kNormBatches = 100;

// The loss `name` of predicted densities [B, 21] against labels (tau [B, 1] for empl/sempl).
Var training_loss(Tape& tape, const std::string& name, const Var& predicted, const Tensor& labels, const Tensor& tau);

// Predicted densities of `rows` at every level of `taus`: [rows, T, 21] row-major. Evaluation mode,
// no tape record; the graph part runs once per map, the head once per level.
std::vector<float> predict(GammaNetwork& model, const Dataset& data, std::span<const int64_t> rows, std::span<const float> taus);

struct Metrics {
  double mae = 0, mse = 0, em1 = 0, em2 = 0, intersection = 0;
};
// The table's metrics (definitions at the top) of predicted [n, 21] vs the rows' labels.
Metrics table_metrics(const Tensor& predicted, const Tensor& truth);

// Other readings of the paper's columns, to find which one its numbers follow:
struct AltMetrics {
  double rmse = 0;         // sqrt(mean_b,j Δq²)
  double sse = 0;          // mean_b Σ_j Δq²        (squared error summed over the bins)
  double em1_sum = 0;      // mean_b Σ_j |ΔQ|      (the EMD of each map, not divided by N)
  double em2_norm = 0;     // mean_b sqrt(Σ_j ΔQ²)
  double em2_sum = 0;      // mean_b Σ_j ΔQ²
};
AltMetrics alt_metrics(const Tensor& predicted, const Tensor& truth);

// Per bin j: the fraction of maps whose true cumulative histogram Q_j lies inside the predicted
// band [low_j, high_j] (cumulative [n, bins], e.g. the 0.1- and 0.9-quantiles), each band widened
// by half a photon of its map (0.5 / totals[i]) on both sides. Labels are count fractions k/total,
// and in the top bins most maps' Q is exactly 1, and so is its 0.9-quantile, which a softmax
// approaches but never reaches: a miss by less than half a photon is no miss.
std::vector<double> band_coverage(const Tensor& low, const Tensor& high, const Tensor& truth_densities,
                                  std::span<const double> totals);

// The labels of `rows` as [n, 21].
Tensor labels_of(const Dataset& data, std::span<const int64_t> rows);

}  // namespace empl::gamma_ray
