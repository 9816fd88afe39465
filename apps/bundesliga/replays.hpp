// The learning task of the football example (paper section 3.2): inputs, labels, the network,
// and the bootstrap reference the predictions are compared with.
//
// Input per club and season: its 34 points per week minus 1.4 (about centred), in week order,
// then (τ − 0.5)·12. Label: the normalised histogram of its 18 table positions over the weeks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "apps/bundesliga/league.hpp"
#include "core/tensor.hpp"
#include "layers/sequential.hpp"

namespace empl::bundesliga {

inline constexpr int kInputs = kWeeks + 1;  // 34 weeks and τ

// The replay's week order: a permutation of 0..33 from Rng(seed, stream of the season, replay).
std::vector<int> replay_order(uint64_t seed, int season_index, int replay);

// Writes one club's 34 inputs (without τ) and its label.
void club_sample(const Season& season, const Positions& positions, int club, const std::vector<int>& order,
                 float* input, float* label);

// Every club of every replay of every season: inputs [S, 34], labels [S, 18], S = seasons ·
// replays · 18, generated in parallel (the same for any thread count).
struct Dataset {
  Tensor inputs, labels;
};
Dataset replayed_dataset(const std::vector<const Season*>& seasons, int replays, uint64_t seed);

// MLP 35 → 128 → 128 → 18 with ReLU and dropout 0.5, softmax for the EMPL; 36 outputs for the
// Gaussian baseline.
std::unique_ptr<Sequential> build_model(uint64_t seed, bool gaussian, float dropout = 0.5f);

// Bin-wise 10%, 20%, …, 90% quantiles [9][18] of the test club's cumulative position histogram
// over `draws` replayed training seasons, in each of which the club with the closest final points
// is replaced by the test club's real season.
std::vector<std::array<double, kClubs>> bootstrap_quantiles(const Season& test_season, int test_club,
                                                            const std::vector<const Season*>& training, int replays,
                                                            int draws, uint64_t seed, uint64_t stream);

}  // namespace empl::bundesliga
