// Reading a football results table (the public "Bundesliga results 1993-2018" CSV the paper's
// example was built from; see ../shared/data/bundesliga/README.md):
//
//   Div,Date,HomeTeam,AwayTeam,FTHG,FTAG,FTR,HTHG,HTAG,HTR,Season
//
// Users' files are messy, so the reader copes with a byte-order mark, CRLF line ends, quoted
// fields, dates as d/m/yyyy or dd/mm/yy, and empty half-time columns. Rows it cannot use (an
// unknown club "NA", a season label of another form, an unreadable date, a match already seen)
// are skipped and reported with their line numbers; a file that is not such a table at all
// (empty, wrong header, a row with missing fields, a score that is not a number) is refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace empl::bundesliga {

struct Date {
  int year = 0, month = 0, day = 0;
  int key() const { return (year * 100 + month) * 100 + day; }  // sortable
};

struct Match {
  int line = 0;        // 1-based line in the file
  std::string season;  // "1997-98"
  Date date;
  std::string home, away;
  int home_goals = 0, away_goals = 0;
};

struct SkippedRow {
  int line = 0;
  std::string reason;
};

struct ResultsFile {
  std::vector<Match> matches;
  std::vector<SkippedRow> skipped;
};

// The 25 seasons of the shared table take 400 kB; a file of more than 64 MiB is not a table
// of football results (read_results refuses it, and anything not a regular file, before reading).
inline constexpr uint64_t kMaxResultsBytes = uint64_t{64} << 20;

ResultsFile parse_results(const std::string& text, const std::string& name);
ResultsFile read_results(const std::string& path);

// "2 rows skipped: line 7652 (unknown club 'NA'), line 7653 (season '2017/18' is not of the form
// YYYY-YY)"; empty when nothing was skipped.
std::string skipped_report(const ResultsFile& file);

}  // namespace empl::bundesliga
