// Seasons and league tables (paper section 3.2). A season has 18 clubs, each playing 34 matches;
// a club's week w is its w-th match in date order (as the authors did). The table after week w
// ranks clubs by points (3 for a win, 1 for a draw), then goal difference, then goals scored,
// then name (so that every table is deterministic).
//
// A replayed season permutes the 34 weeks (the same permutation for every club): the final
// table is unchanged, but the path to it, and so each club's histogram of table positions over
// the 34 weeks, is new. That is the paper's data augmentation: 20 training seasons × 1,000
// replays × 18 clubs = 360,000 samples.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "apps/bundesliga/results_csv.hpp"

namespace empl::bundesliga {

inline constexpr int kClubs = 18;
inline constexpr int kWeeks = 34;

struct WeekResult {
  int points = 0, goals_for = 0, goals_against = 0;
};

struct Season {
  std::string label;
  std::array<std::string, kClubs> clubs;                              // sorted by name
  std::array<std::array<WeekResult, kWeeks>, kClubs> results;         // [club][week]
  int final_points(int club) const;
};

// Seasons from first to last label inclusive ("1995-96" .. "2017-18"), each complete; refuses a
// season with a club that does not have exactly 34 matches, naming the season and the club.
std::map<std::string, Season> build_seasons(const ResultsFile& file, const std::string& first, const std::string& last);

struct TableRow {
  int club = 0;  // index into Season::clubs
  int points = 0, goals_for = 0, goals_against = 0;
};

// The table after `weeks` weeks (1..34), in the given order of weeks (identity when empty).
std::vector<TableRow> table_after(const Season& season, int weeks, const std::vector<int>& week_order = {});

// positions[club][w] = the club's table position (1..18) after week w + 1, for a week order
// (identity when empty). Optionally with one club's results replaced by another club's season in
// its own week order (for the bootstrap reference).
using Positions = std::array<std::array<int, kWeeks>, kClubs>;
Positions positions(const Season& season, const std::vector<int>& week_order = {},
                    int replaced_club = -1, const std::array<WeekResult, kWeeks>* replacement = nullptr);

// The normalised histogram of a club's positions over the 34 weeks, 18 bins.
std::array<float, kClubs> position_histogram(const Positions& positions, int club);

}  // namespace empl::bundesliga
