#include "apps/bundesliga/replays.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "layers/activations.hpp"
#include "layers/dropout.hpp"
#include "layers/linear.hpp"

namespace empl::bundesliga {

std::vector<int> replay_order(uint64_t seed, int season_index, int replay) {
  Rng rng(seed, 5000 + static_cast<uint64_t>(season_index), static_cast<uint64_t>(replay));
  return rng.permutation(kWeeks);
}

void club_sample(const Season& season, const Positions& positions, int club, const std::vector<int>& order,
                 float* input, float* label) {
  for (int w = 0; w < kWeeks; ++w)
    input[w] = static_cast<float>(season.results[club][order.empty() ? w : order[w]].points) - 1.4f;
  const auto histogram = position_histogram(positions, club);
  std::copy(histogram.begin(), histogram.end(), label);
}

Dataset replayed_dataset(const std::vector<const Season*>& seasons, int replays, uint64_t seed) {
  if (replays <= 0) fail("replayed_dataset: replays = ", replays, " must be positive");
  const int64_t samples = static_cast<int64_t>(seasons.size()) * replays * kClubs;
  Dataset data{Tensor::empty({samples, kWeeks}, "Bundesliga inputs"), Tensor::empty({samples, kClubs}, "Bundesliga labels")};
  parallel_for(static_cast<int64_t>(seasons.size()) * replays, 16, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int s = static_cast<int>(k / replays), r = static_cast<int>(k % replays);
      const std::vector<int> order = replay_order(seed, s, r);
      const Positions table = positions(*seasons[s], order);
      for (int c = 0; c < kClubs; ++c) {
        const int64_t row = k * kClubs + c;
        club_sample(*seasons[s], table, c, order, data.inputs.data() + row * kWeeks, data.labels.data() + row * kClubs);
      }
    }
  });
  return data;
}

std::unique_ptr<Sequential> build_model(uint64_t seed, bool gaussian, float dropout) {
  auto model = std::make_unique<Sequential>();
  model->add<Linear>(kInputs, 128, LinearOptions{.seed = seed, .stream = 301});
  model->add<ReLU>();
  model->add<Dropout>(dropout, seed, 3'000'000);
  model->add<Linear>(128, 128, LinearOptions{.seed = seed, .stream = 302});
  model->add<ReLU>();
  model->add<Dropout>(dropout, seed, 4'000'000);
  model->add<Linear>(128, gaussian ? 2 * kClubs : kClubs, LinearOptions{.seed = seed, .stream = 303});
  if (!gaussian) model->add<Softmax>();
  model->pack();
  return model;
}

std::vector<std::array<double, kClubs>> bootstrap_quantiles(const Season& test_season, int test_club,
                                                            const std::vector<const Season*>& training, int replays,
                                                            int draws, uint64_t seed, uint64_t stream) {
  const int target_points = test_season.final_points(test_club);
  std::vector<std::array<double, kClubs>> cumulative(static_cast<size_t>(draws));
  parallel_for(draws, 8, [&](int64_t begin, int64_t end) {
    for (int64_t d = begin; d < end; ++d) {
      Rng rng(seed, stream, static_cast<uint64_t>(d));
      const int s = static_cast<int>(rng.uniform_int(training.size()));
      const int r = static_cast<int>(rng.uniform_int(static_cast<uint64_t>(replays)));
      const Season& season = *training[s];
      int closest = 0;
      for (int c = 1; c < kClubs; ++c)
        if (std::abs(season.final_points(c) - target_points) < std::abs(season.final_points(closest) - target_points))
          closest = c;
      const Positions table = positions(season, replay_order(seed, s, r), closest, &test_season.results[test_club]);
      const auto histogram = position_histogram(table, closest);
      double running = 0.0;
      for (int j = 0; j < kClubs; ++j) cumulative[d][j] = running += histogram[j];
    }
  });
  std::vector<std::array<double, kClubs>> quantiles(9);
  std::vector<double> column(static_cast<size_t>(draws));
  for (int j = 0; j < kClubs; ++j) {
    for (int d = 0; d < draws; ++d) column[d] = cumulative[d][j];
    std::sort(column.begin(), column.end());
    for (int q = 0; q < 9; ++q) {
      // The empirical quantile inf{v : F(v) ≥ τ}, τ = 0.1 (q + 1).
      const size_t index = static_cast<size_t>(std::ceil(0.1 * (q + 1) * draws - 1e-9)) - 1;
      quantiles[q][j] = column[std::min(index, column.size() - 1)];
    }
  }
  return quantiles;
}

}  // namespace empl::bundesliga
