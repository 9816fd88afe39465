#include "apps/bundesliga/league.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace empl::bundesliga {

int Season::final_points(int club) const {
  int total = 0;
  for (const WeekResult& r : results[club]) total += r.points;
  return total;
}

std::map<std::string, Season> build_seasons(const ResultsFile& file, const std::string& first, const std::string& last) {
  std::map<std::string, std::map<std::string, std::vector<const Match*>>> by_season;  // season -> club -> matches
  for (const Match& m : file.matches) {
    if (m.season < first || m.season > last) continue;
    by_season[m.season][m.home].push_back(&m);
    by_season[m.season][m.away].push_back(&m);
  }
  std::map<std::string, Season> seasons;
  for (auto& [label, clubs] : by_season) {
    if (clubs.size() != kClubs) fail("season ", label, " has ", clubs.size(), " clubs, expected ", kClubs);
    Season season;
    season.label = label;
    int index = 0;
    for (auto& [club, matches] : clubs) {
      if (matches.size() != kWeeks)
        fail("season ", label, " is incomplete: ", club, " has ", matches.size(), " matches, expected ", kWeeks);
      std::sort(matches.begin(), matches.end(), [](const Match* a, const Match* b) {
        return a->date.key() != b->date.key() ? a->date.key() < b->date.key() : a->line < b->line;
      });
      season.clubs[index] = club;
      for (int w = 0; w < kWeeks; ++w) {
        const Match& m = *matches[w];
        const bool home = m.home == club;
        const int scored = home ? m.home_goals : m.away_goals, conceded = home ? m.away_goals : m.home_goals;
        season.results[index][w] = {scored > conceded ? 3 : scored == conceded ? 1 : 0, scored, conceded};
      }
      ++index;
    }
    seasons.emplace(label, std::move(season));
  }
  // Every season from first to last must be there.
  for (int year = std::stoi(first.substr(0, 4)); year <= std::stoi(last.substr(0, 4)); ++year) {
    char label[16];
    std::snprintf(label, sizeof label, "%04d-%02d", year, (year + 1) % 100);
    if (!seasons.count(label)) fail("season ", label, " is missing from the results file");
  }
  return seasons;
}

namespace {

bool ranks_before(const TableRow& a, const TableRow& b, const Season& season) {
  if (a.points != b.points) return a.points > b.points;
  const int da = a.goals_for - a.goals_against, db = b.goals_for - b.goals_against;
  if (da != db) return da > db;
  if (a.goals_for != b.goals_for) return a.goals_for > b.goals_for;
  return season.clubs[a.club] < season.clubs[b.club];
}

// The replacing club keeps its own order of results (its real season); the others are replayed.
const WeekResult& result_of(const Season& season, int club, int week, int replayed_week, int replaced_club,
                            const std::array<WeekResult, kWeeks>* replacement) {
  return club == replaced_club ? (*replacement)[week] : season.results[club][replayed_week];
}

}  // namespace

std::vector<TableRow> table_after(const Season& season, int weeks, const std::vector<int>& week_order) {
  if (weeks < 1 || weeks > kWeeks) fail("table: week ", weeks, " is outside 1..", kWeeks);
  std::vector<TableRow> table(kClubs);
  for (int c = 0; c < kClubs; ++c) {
    table[c].club = c;
    for (int w = 0; w < weeks; ++w) {
      const WeekResult& r = season.results[c][week_order.empty() ? w : week_order[w]];
      table[c].points += r.points;
      table[c].goals_for += r.goals_for;
      table[c].goals_against += r.goals_against;
    }
  }
  std::sort(table.begin(), table.end(), [&](const TableRow& a, const TableRow& b) { return ranks_before(a, b, season); });
  return table;
}

Positions positions(const Season& season, const std::vector<int>& week_order, int replaced_club,
                    const std::array<WeekResult, kWeeks>* replacement) {
  Positions out{};
  std::array<TableRow, kClubs> table;
  for (int c = 0; c < kClubs; ++c) table[c] = {c, 0, 0, 0};
  for (int w = 0; w < kWeeks; ++w) {
    // Accumulate week w, then re-rank (an insertion sort: the table changes little per week).
    for (TableRow& row : table) {
      const WeekResult& r = result_of(season, row.club, w, week_order.empty() ? w : week_order[w], replaced_club, replacement);
      row.points += r.points;
      row.goals_for += r.goals_for;
      row.goals_against += r.goals_against;
    }
    for (int i = 1; i < kClubs; ++i)
      for (int j = i; j > 0 && ranks_before(table[j], table[j - 1], season); --j) std::swap(table[j], table[j - 1]);
    for (int p = 0; p < kClubs; ++p) out[table[p].club][w] = p + 1;
  }
  return out;
}

std::array<float, kClubs> position_histogram(const Positions& positions, int club) {
  std::array<float, kClubs> histogram{};
  for (int w = 0; w < kWeeks; ++w) histogram[positions[club][w] - 1] += 1.0f / kWeeks;
  return histogram;
}

}  // namespace empl::bundesliga
