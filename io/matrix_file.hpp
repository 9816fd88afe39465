// A 2-D table of numbers from a user's file: a NumPy .npy (float32, [S, C] or [S]) or a text file
// of rows, comma- or whitespace-separated, with an optional header row of column names. It is how
// empl_fit reads features X [S, F] and histograms H [S, N]. Every value is checked on the way in:
// a ragged row, a word where a number belongs, a NaN or an infinity is refused with the file, the
// line (or, for .npy, the row) and the value, since a silent NaN would only surface thousands of
// training steps later. Read after io/npy.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace empl {

struct MatrixFile {
  std::string path;                  // as given, for messages
  Tensor values;                     // [S, C]
  std::vector<std::string> columns;  // the header's names; empty when the file has none (or is .npy)
  std::vector<int64_t> lines;        // the 1-based line of each row in a text file; empty for .npy

  int64_t rows() const { return values.shape()[0]; }
  int64_t cols() const { return values.shape()[1]; }
  // "h.csv, row 17 (line 18)" or "h.npy, row 17": where row r (0-based) is, for error messages.
  std::string where(int64_t row) const;
};

// Text: lines that are empty or start with '#' are skipped. The separator is a comma when any
// other line has one, else runs of spaces and tabs. The first line is a header when any of
// its fields is not a number. Every row must have as many values as the first.
MatrixFile parse_matrix_text(const std::string& text, const std::string& name);

// By the name's ending: ".npy" is read as NumPy, anything else as text. A 1-D .npy array is one
// column. At most `max_bytes` are read (io/atomic_file.hpp's checks for devices, FIFOs, sizes).
MatrixFile read_matrix(const std::string& path, uint64_t max_bytes = uint64_t{1} << 30);

}  // namespace empl
