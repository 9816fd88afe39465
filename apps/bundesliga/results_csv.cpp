#include "apps/bundesliga/results_csv.hpp"

#include <set>
#include <tuple>

#include "core/error.hpp"
#include "io/atomic_file.hpp"

namespace empl::bundesliga {
namespace {

const char* const kHeader[] = {"Div", "Date", "HomeTeam", "AwayTeam", "FTHG", "FTAG", "FTR", "HTHG", "HTAG", "HTR", "Season"};
constexpr size_t kColumns = std::size(kHeader);

// Splits one CSV line into fields; a quoted field may contain commas and "" for a quote.
std::vector<std::string> split_fields(const std::string& line, const std::string& name, int number) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) fail(name, ": line ", number, ": a quoted field is not closed");
  return fields;
}

bool all_digits(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

// d/m/yyyy or dd/mm/yy; false when the text is neither (or not a calendar date).
bool parse_date(const std::string& text, Date& date) {
  const size_t first = text.find('/'), second = text.find('/', first == std::string::npos ? 0 : first + 1);
  if (first == std::string::npos || second == std::string::npos) return false;
  const std::string d = text.substr(0, first), m = text.substr(first + 1, second - first - 1), y = text.substr(second + 1);
  if (!all_digits(d) || !all_digits(m) || !all_digits(y) || d.size() > 2 || m.size() > 2 || (y.size() != 2 && y.size() != 4))
    return false;
  date.day = std::stoi(d);
  date.month = std::stoi(m);
  date.year = std::stoi(y);
  if (y.size() == 2) date.year += date.year >= 50 ? 1900 : 2000;  // the table spans 1993 to 2018
  return date.month >= 1 && date.month <= 12 && date.day >= 1 && date.day <= 31;
}

bool season_label(const std::string& text) {
  // "1997-98": four digits, a dash, the next year's last two digits.
  if (text.size() != 7 || text[4] != '-' || !all_digits(text.substr(0, 4)) || !all_digits(text.substr(5))) return false;
  return (std::stoi(text.substr(0, 4)) + 1) % 100 == std::stoi(text.substr(5));
}

int goals(const std::string& text, const char* column, const std::string& name, int number) {
  if (!all_digits(text) || text.size() > 3)
    fail(name, ": line ", number, ": ", column, " '", text, "' is not a number of goals");
  return std::stoi(text);
}

}  // namespace

ResultsFile parse_results(const std::string& raw, const std::string& name) {
  std::string text = raw;
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte-order mark
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) fail(name, ": the file is empty");
  ResultsFile file;
  std::set<std::tuple<std::string, std::string, std::string>> seen;  // (season, home, away)
  size_t start = 0;
  int number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> fields = split_fields(line, name, number);
    if (number == 1) {
      if (fields.size() != kColumns) fail(name, ": wrong header: expected the ", kColumns, " columns Div,Date,HomeTeam,AwayTeam,FTHG,FTAG,FTR,HTHG,HTAG,HTR,Season");
      for (size_t i = 0; i < kColumns; ++i)
        if (fields[i] != kHeader[i]) fail(name, ": wrong header: column ", i + 1, " is '", fields[i], "', expected '", kHeader[i], "'");
      continue;
    }
    if (fields.size() != kColumns)
      fail(name, ": line ", number, ": ", fields.size(), " fields, expected ", kColumns,
           last ? " (the file looks truncated)" : " (a malformed row)");
    Match match;
    match.line = number;
    match.home = fields[2];
    match.away = fields[3];
    match.season = fields[10];
    match.home_goals = goals(fields[4], "FTHG", name, number);
    match.away_goals = goals(fields[5], "FTAG", name, number);
    std::string reason;
    if (match.home == "NA" || match.away == "NA" || match.home.empty() || match.away.empty())
      reason = "unknown club '" + (match.home == "NA" || match.home.empty() ? match.home : match.away) + "'";
    else if (match.home == match.away)
      reason = "a club plays itself";
    else if (!season_label(match.season))
      reason = "season '" + match.season + "' is not of the form YYYY-YY";
    else if (!parse_date(fields[1], match.date))
      reason = "unreadable date '" + fields[1] + "'";
    else if (!seen.insert({match.season, match.home, match.away}).second)
      reason = "duplicate match " + match.home + " - " + match.away + " in " + match.season;
    if (!reason.empty()) file.skipped.push_back({number, reason});
    else file.matches.push_back(std::move(match));
  }
  if (number <= 1) fail(name, ": the file has a header but no rows");
  return file;
}

ResultsFile read_results(const std::string& path) {
  return parse_results(read_file(path, kMaxResultsBytes, "results file"), path);
}

std::string skipped_report(const ResultsFile& file) {
  if (file.skipped.empty()) return "";
  std::string report = std::to_string(file.skipped.size()) + " rows skipped:";
  for (const SkippedRow& row : file.skipped) report += "\n  line " + std::to_string(row.line) + ": " + row.reason;
  return report;
}

}  // namespace empl::bundesliga
