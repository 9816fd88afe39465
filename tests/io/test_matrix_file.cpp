// io/matrix_file: a user's table of numbers from CSV (with and without a header), whitespace
// text and .npy, and the errors that name the file, the line and the value.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "io/matrix_file.hpp"
#include "io/npy.hpp"

using namespace empl;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_matrix_text(text, "t.csv");
  } catch (const Error& error) {
    return error.what();
  }
  return "(no error)";
}

std::vector<float> values_of(const MatrixFile& m) { return {m.values.values().begin(), m.values.values().end()}; }

}  // namespace

TEST_CASE("matrix file: CSV with a header row") {
  const MatrixFile m = parse_matrix_text("a, b\n1,2\n3,-4.5e1\n", "t.csv");
  CHECK(m.values.shape() == Shape{2, 2});
  CHECK(values_of(m) == std::vector<float>{1, 2, 3, -45});
  CHECK(m.columns == std::vector<std::string>{"a", "b"});
  CHECK(m.lines == std::vector<int64_t>{2, 3});
  CHECK(m.where(1) == "t.csv, row 1 (line 3)");
}

TEST_CASE("matrix file: CSV without a header, CRLF line ends, '+' signs and no final newline") {
  const MatrixFile m = parse_matrix_text("0.5,+2\r\n7,8", "t.csv");
  CHECK(m.values.shape() == Shape{2, 2});
  CHECK(values_of(m) == std::vector<float>{0.5f, 2, 7, 8});
  CHECK(m.columns.empty());
  CHECK(m.lines == std::vector<int64_t>{1, 2});
}

TEST_CASE("matrix file: whitespace-separated, with comments and blank lines skipped") {
  const MatrixFile m = parse_matrix_text("# made by hand\n1 2\t3\n\n  4  5 6 \n", "t.txt");
  CHECK(m.values.shape() == Shape{2, 3});
  CHECK(values_of(m) == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(m.lines == std::vector<int64_t>{2, 4});
}

TEST_CASE("matrix file: a ragged row, a word, a NaN, an empty field and an empty file name the line") {
  CHECK(error_of("a,b\n1,2\n3\n") == "t.csv, line 3: 1 values, expected 2 as on line 1 (a ragged row)");
  CHECK(error_of("f\n1\n2,3\n") == "t.csv, line 3: 2 values, expected 1 as on line 1 (a ragged row)");  // one column
  CHECK(error_of("1 2 3\n4 5 6 7\n") == "t.csv, line 2: 4 values, expected 3 as on line 1 (a ragged row)");
  CHECK(error_of("1,2\n3,x\n") == "t.csv, line 2, column 2: 'x' is not a number");
  CHECK(error_of("1,2\n\n3,nan\n") == "t.csv, line 3, column 2: nan is not a finite number");
  CHECK(error_of("1,2\n3,-inf\n") == "t.csv, line 2, column 2: -inf is not a finite number");
  CHECK(error_of("1,2\n3,1e39\n") == "t.csv, line 2, column 2: 1e39 is beyond the float32 range");
  CHECK(error_of("1,2\n3,\n") == "t.csv, line 2, column 2: '' is not a number");
  CHECK(error_of("") == "t.csv: no rows of numbers (the file is empty)");
  CHECK(error_of("a,b\n") == "t.csv: no rows of numbers after the header");
}

TEST_CASE("matrix file: .npy of 2 and 1 dimensions, a NaN in one, and a text file by its name") {
  std::string pattern = (std::filesystem::temp_directory_path() / "empl_test_XXXXXX").string();
  const std::filesystem::path folder = mkdtemp(pattern.data());
  Tensor table = Tensor::from({3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6});
  save_npy((folder / "x.npy").string(), table);
  const MatrixFile two = read_matrix((folder / "x.npy").string());
  CHECK(two.values.shape() == Shape{3, 2});
  CHECK(values_of(two) == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(two.where(2) == (folder / "x.npy").string() + ", row 2");
  save_npy((folder / "v.npy").string(), Tensor::from({3}, std::vector<float>{7, 8, 9}));
  CHECK(read_matrix((folder / "v.npy").string()).values.shape() == Shape{3, 1});
  table[3] = NAN;
  save_npy((folder / "nan.npy").string(), table);
  CHECK_THROWS_WITH_AS(read_matrix((folder / "nan.npy").string()),
                       ((folder / "nan.npy").string() + ", row 1, column 2: nan is not a finite number").c_str(), Error);
  write_file_atomically((folder / "x.csv").string(), "1 2\n3 4\n");
  CHECK(read_matrix((folder / "x.csv").string()).values.shape() == Shape{2, 2});
  std::filesystem::remove_all(folder);
}
