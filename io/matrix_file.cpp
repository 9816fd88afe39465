// Reading a user's table of numbers (.npy or text, comma- or whitespace-separated, optional
// header row) into a [S, C] matrix with every value checked: a ragged row, a word where a number
// belongs, a NaN or an infinity is refused with the file, line (or row) and value. No equation.
// Read io/matrix_file.hpp first.
#include "io/matrix_file.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"

namespace empl {
namespace {

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

std::string_view trim(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The fields of one line: split at commas (each trimmed) or at runs of spaces and tabs.
std::vector<std::string_view> split(std::string_view line, bool comma) {
  std::vector<std::string_view> fields;
  if (comma) {
    for (size_t start = 0;;) {
      const size_t end = line.find(',', start);
      fields.push_back(trim(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
  } else {
    for (size_t start = line.find_first_not_of(" \t\r"); start != std::string_view::npos;) {
      const size_t end = line.find_first_of(" \t\r", start);
      fields.push_back(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
      start = end == std::string_view::npos ? end : line.find_first_not_of(" \t\r", end);
    }
  }
  return fields;
}

// The whole field as a double, or false. std::from_chars takes no leading '+'; we do.
bool parse_number(std::string_view field, double& value) {
  if (!field.empty() && field[0] == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  return error == std::errc() && end == field.data() + field.size();
}

}  // namespace

std::string MatrixFile::where(int64_t row) const {
  std::string text = path + ", row " + std::to_string(row);
  if (!lines.empty()) text += " (line " + std::to_string(lines[static_cast<size_t>(row)]) + ")";
  return text;
}

MatrixFile parse_matrix_text(const std::string& text, const std::string& name) {
  MatrixFile matrix{name, {}, {}, {}};
  std::vector<float> values;
  int64_t width = -1, first_line = 0, line_number = 0;
  // Commas anywhere outside comments make it CSV: a file of one column has none but in a ragged row.
  bool comma = false;
  for (size_t start = 0; start < text.size() && !comma;) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = trim(std::string_view(text).substr(start, end - start));
    comma = !line.empty() && line[0] != '#' && line.find(',') != std::string_view::npos;
    start = end + 1;
  }
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = trim(std::string_view(text).substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string_view> fields = split(line, comma);
    if (width < 0 && matrix.columns.empty()) {
      // The first line: a header when any field is not a number (its values are then names).
      double ignored;
      bool header = false;
      for (const std::string_view field : fields) header = header || !parse_number(field, ignored);
      if (header) {
        for (const std::string_view field : fields) matrix.columns.emplace_back(field);
        width = static_cast<int64_t>(fields.size());
        first_line = line_number;
        continue;
      }
    }
    if (width < 0) {
      width = static_cast<int64_t>(fields.size());
      first_line = line_number;
    }
    if (static_cast<int64_t>(fields.size()) != width)
      fail(name, ", line ", line_number, ": ", fields.size(), " values, expected ", width, " as on line ", first_line,
           " (a ragged row)");
    for (size_t c = 0; c < fields.size(); ++c) {
      double value;
      if (!parse_number(fields[c], value))
        fail(name, ", line ", line_number, ", column ", c + 1, ": '", fields[c], "' is not a number");
      if (!std::isfinite(value)) fail(name, ", line ", line_number, ", column ", c + 1, ": ", fields[c], " is not a finite number");
      if (std::abs(value) > std::numeric_limits<float>::max())
        fail(name, ", line ", line_number, ", column ", c + 1, ": ", fields[c], " is beyond the float32 range");
      values.push_back(static_cast<float>(value));
    }
    matrix.lines.push_back(line_number);
  }
  const int64_t rows = static_cast<int64_t>(matrix.lines.size());
  if (rows == 0) fail(name, ": no rows of numbers", matrix.columns.empty() ? " (the file is empty)" : " after the header");
  matrix.values = Tensor::from({rows, width}, values);
  return matrix;
}

MatrixFile read_matrix(const std::string& path, uint64_t max_bytes) {
  if (!ends_with(path, ".npy")) return parse_matrix_text(read_file(path, max_bytes, "table of numbers"), path);
  InputFile probe(path, max_bytes, ".npy file");  // the size cap, before load_npy's own 1 GiB one
  MatrixFile matrix{path, load_npy(path), {}, {}};
  if (matrix.values.rank() == 1) matrix.values = Tensor::from({matrix.values.shape()[0], 1}, matrix.values.values());
  if (matrix.values.rank() != 2) fail(path, ": the array is ", matrix.values.shape(), ", expected [rows, columns]");
  if (matrix.rows() == 0 || matrix.cols() == 0) fail(path, ": the array is ", matrix.values.shape(), ", which holds no values");
  for (int64_t i = 0; i < matrix.values.numel(); ++i)
    if (!std::isfinite(matrix.values[i]))
      fail(matrix.where(i / matrix.cols()), ", column ", i % matrix.cols() + 1, ": ", matrix.values[i], " is not a finite number");
  return matrix;
}

}  // namespace empl
