// Fig. 4 of the paper: for a dim, a medium and a bright test map (the 10th, 50th and 90th
// percentile of the label's mean bin), the count map projected around the Galactic centre
// (Cartesian in l, b; log colour scale), and the true vs predicted cumulative and density
// histograms with the 5–95% and 25–75% quantile bands and the median. Drawn with io/svg_plot.
#pragma once

#include <string>
#include <vector>

#include "apps/gamma_ray/dataset.hpp"
#include "apps/gamma_ray/network.hpp"

namespace empl::gamma_ray {

// `rows`: the test maps to choose from. quantile: the network takes τ (else one curve, no bands).
std::string figure_svg(GammaNetwork& model, const Dataset& data, const std::vector<int64_t>& rows, const std::string& loss,
                       bool quantile);

}  // namespace empl::gamma_ray
