// Bad input to every app binary, one table per app: each row is a bad flag or file, and each must
// end with exit status 2, exactly one line on stderr "<app>: ..." that names the flag or file and
// the value, nothing on stdout, and nothing left behind: no --out folder, no new checkpoint, no
// temporary file, and a checkpoint that --save would overwrite unchanged.
//
// Every training row runs twice, with --save naming a new file and naming an existing one. Runs
// are tiny (2 steps of batch 16, one replay), so a check that no longer fires costs little time.
// Files no reader may read (/dev/zero, /dev/urandom, a FIFO, a file of gigabytes) must also be
// refused within a second: before the fix, --load /dev/zero grew to 3.2 GB in 5 s and a FIFO hung.
// The bad-flag cases of test_toy_urn, test_bimodal and test_bundesliga moved here.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "run_binary.hpp"

using namespace empl::testing;

namespace {

const std::string kShared = std::string(EMPL_SOURCE_DIR) + "/../shared/data/bundesliga/Bundesliga_Results.csv";
const std::string kTiny = "--steps 2 --batch 16 --threads 1 --quiet";
const std::string kTinyBundesliga = kTiny + " --replays 1 --bootstrap 2";

struct BadInput {
  std::string input;               // what the row tries, for the failure message
  std::string arguments;           // {dir} is the test's folder, {data} the shared results, {clean} them without bad rows
  std::vector<std::string> named;  // what the stderr line must contain (placeholders as in arguments)
  bool within_a_second = false;    // a file that is endless, blocks or is huge: refused before it is read
};

void write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A test's folder with every bad file the rows refer to.
struct Fixture {
  TemporaryFolder folder;

  std::string expand(std::string text) const {
    const std::map<std::string, std::string> places = {
        {"{dir}", folder.path.string()}, {"{data}", kShared}, {"{clean}", folder.file("clean.csv")}};
    for (const auto& [key, value] : places)
      for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) text.replace(at, key.size(), value);
    return text;
  }

  // own.ckpt, a real checkpoint from a short run of `app` (`arguments`), its truncated_ and
  // flipped_ copies, kept.ckpt (the existing file every row gives to --save), and other.ckpt, a
  // checkpoint of `other_app`: the files common_rows refers to.
  void make_checkpoints(const std::string& app, const std::string& arguments, const std::string& other_app) {
    make_checkpoint(app, "own.ckpt", arguments);
    make_checkpoint(other_app, "other.ckpt", kTiny);
    const std::string bytes = slurp(folder.file("own.ckpt"));
    REQUIRE(bytes.size() > 1000);
    write(folder.file("truncated_own.ckpt"), bytes.substr(0, bytes.size() / 2));
    std::string flipped = bytes;
    flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0xFF);
    write(folder.file("flipped_own.ckpt"), flipped);
    write(folder.file("kept.ckpt"), bytes);
  }
  void make_checkpoint(const std::string& app, const std::string& name, const std::string& arguments) {
    const RunResult run = run_app_binary(app, arguments + " --out " + folder.file("made") + " --save " + folder.file(name));
    INFO(app, " made no checkpoint: ", run.err);
    REQUIRE(run.status == 0);
    std::filesystem::remove_all(folder.file("made"));
  }

  // Files no reader may read: a FIFO (opening it would wait for a writer) and files of 2 GiB and
  // 100 MiB (sparse: they take no disk), larger than a checkpoint or a results table may be.
  Fixture() {
    write(folder.file("file"), "a regular file, where a folder is needed\n");
    std::filesystem::create_directory(folder.file("folder"));
    REQUIRE(mkfifo(folder.file("fifo").c_str(), 0600) == 0);
    std::filesystem::create_symlink("/dev/zero", folder.file("zero_link"));
    write(folder.file("huge.ckpt"), "EMPLCKPT");
    std::filesystem::resize_file(folder.file("huge.ckpt"), uint64_t{2} << 30);
    write(folder.file("huge.csv"), "Div,Date,HomeTeam,AwayTeam,FTHG,FTAG,FTR,HTHG,HTAG,HTR,Season\n");
    std::filesystem::resize_file(folder.file("huge.csv"), uint64_t{100} << 20);
  }

  std::set<std::string> listing() const {
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder.path))
      names.insert(entry.path().lexically_relative(folder.path).string());
    return names;
  }
};

// Runs every row of `app` and checks the contract of the file's opening comment. `trains`: the
// rows are training runs, given --out and --save in the test's folder (a row that names one of
// them itself keeps its own).
void check_bad_inputs(Fixture& fixture, const std::string& app, const std::string& base, const std::vector<BadInput>& rows,
                      bool trains) {
  const std::string kept = trains ? slurp(fixture.folder.file("kept.ckpt")) : "";
  const std::set<std::string> before = fixture.listing();
  for (const BadInput& row : rows) {
    for (const std::string& save : {std::string("new.ckpt"), std::string("kept.ckpt")}) {
      std::string arguments = base + " " + row.arguments;
      if (trains && row.arguments.find("--out") == std::string::npos) arguments += " --out {dir}/out";
      if (trains && row.arguments.find("--save") == std::string::npos) arguments += " --save {dir}/" + save;
      arguments = fixture.expand(arguments);
      // A reader that regressed would grow by gigabytes a second or hang: stop it after 3 s.
      const RunResult run = run_app_binary(app, arguments, row.within_a_second ? 3 : 600);
      INFO(app, ", ", row.input, ": ", app, " ", arguments);
      INFO("stderr: ", run.err);
      CHECK(run.status == 2);
      if (row.within_a_second) CHECK(run.seconds < 1.0);
      CHECK(count_lines(run.err) == 1);
      CHECK(run.err.rfind(app + ": ", 0) == 0);
      for (const std::string& name : row.named) CHECK(run.err.find(fixture.expand(name)) != std::string::npos);
      CHECK(run.out.empty());
      CHECK(fixture.listing() == before);  // no --out folder, no checkpoint, no temporary file
      CHECK(std::filesystem::is_fifo(fixture.folder.file("fifo")));  // not replaced by a file
      if (trains) CHECK(slurp(fixture.folder.file("kept.ckpt")) == kept);
      if (!trains || row.arguments.find("--save") != std::string::npos) break;  // the row's own --save, or none
    }
  }
}

// The rows every training app shares; `other` is the app whose checkpoint is given as the wrong one.
std::vector<BadInput> common_rows(const std::string& other) {
  return {
      {"a value of the wrong type", "--steps abc", {"--steps", "'abc'"}},
      {"a value of the wrong type after =", "--batch=1.5", {"--batch", "'1.5'"}},
      {"a flag without its value", "--steps --quiet", {"--steps", "'--quiet'"}},
      {"zero steps", "--steps 0", {"--steps", "got 0"}},
      {"negative steps", "--steps -3", {"--steps", "got -3"}},
      {"zero batch", "--batch 0", {"--batch", "got 0"}},
      {"negative batch", "--batch -5", {"--batch", "got -5"}},
      {"a negative seed", "--seed -1", {"--seed", "'-1'"}},
      {"an unknown loss", "--loss nonsense", {"--loss", "'nonsense'"}},
      {"an unknown flag", "--bogus 3", {"bogus"}},
      {"negative threads", "--threads -1", {"--threads", "got -1"}},
      {"a missing checkpoint", "--load /nonexistent", {"/nonexistent", "No such file"}},
      {"a directory as checkpoint", "--load {dir}/folder", {"{dir}/folder", "directory"}},
      {"an empty checkpoint path", "--load ''", {"--load", "empty"}},
      {"a truncated checkpoint", "--load {dir}/truncated_own.ckpt", {"{dir}/truncated_own.ckpt", "truncated"}},
      {"a checkpoint with a flipped byte", "--load {dir}/flipped_own.ckpt", {"{dir}/flipped_own.ckpt", "corrupted"}},
      {"another app's checkpoint", "--load {dir}/other.ckpt", {"{dir}/other.ckpt", "app '" + other + "'"}},
      {"--resume of a truncated checkpoint", "--resume {dir}/truncated_own.ckpt", {"{dir}/truncated_own.ckpt", "truncated"}},
      {"--resume of another app's checkpoint", "--resume {dir}/other.ckpt", {"{dir}/other.ckpt", "app '" + other + "'"}},
      {"--resume of a missing checkpoint", "--resume /nonexistent", {"/nonexistent", "No such file"}},
      {"--load and --resume together", "--load {dir}/own.ckpt --resume {dir}/own.ckpt", {"--load", "--resume"}},
      {"--out that cannot be created", "--out /proc/not_here", {"--out", "/proc/not_here"}},
      {"--out under a regular file", "--out {dir}/file/sub", {"--out", "{dir}/file/sub"}},
      {"--out that is a regular file", "--out {dir}/file", {"--out", "{dir}/file"}},
      {"an empty --out", "--out ''", {"--out", "empty"}},
      {"--save under a regular file", "--save {dir}/file/run.ckpt", {"--save", "{dir}/file/run.ckpt"}},
      {"--save that is a directory", "--save {dir}/folder", {"--save", "{dir}/folder"}},
      {"--save in /proc", "--save /proc/run.ckpt", {"--save", "/proc/run.ckpt"}},
      {"/dev/zero as checkpoint", "--load /dev/zero", {"/dev/zero", "not a regular file"}, true},
      {"/dev/urandom as checkpoint", "--load /dev/urandom", {"/dev/urandom", "not a regular file"}, true},
      {"a FIFO as checkpoint", "--load {dir}/fifo", {"{dir}/fifo", "FIFO"}, true},
      {"a 2 GiB checkpoint", "--load {dir}/huge.ckpt", {"{dir}/huge.ckpt", "2147483648 bytes"}, true},
      {"--resume of /dev/zero", "--resume /dev/zero", {"/dev/zero", "not a regular file"}, true},
      {"--resume of a FIFO", "--resume {dir}/fifo", {"{dir}/fifo", "FIFO"}, true},
      {"--save that is a FIFO", "--save {dir}/fifo", {"--save", "{dir}/fifo", "not a regular file"}, true},
      {"a symbolic link to /dev/zero as checkpoint", "--load {dir}/zero_link", {"{dir}/zero_link", "not a regular file"}, true},
  };
}

// The shared results without their five malformed rows (its last lines), for the rows whose error
// depends on the data: with the shared file, its report of rejected rows comes first, by design.
// Also the first `lines` lines of the shared file, for a file of whole rows that stops mid-season.
std::string first_lines(int lines) {
  const std::string shared = slurp(kShared);
  size_t end = 0;
  for (int line = 0; line < lines; ++line) end = shared.find('\n', end) + 1;
  return shared.substr(0, end);
}
constexpr int kCleanLines = 1 + 25 * 306;  // the header and 25 seasons of 306 matches

void write_clean_results(const Fixture& fixture) {
  write(fixture.folder.file("clean.csv"), first_lines(kCleanLines));
  const RunResult clean = run_app_binary("bundesliga", "table --season 2017-18 --data " + fixture.folder.file("clean.csv"));
  INFO(clean.err);
  REQUIRE(clean.status == 0);
  REQUIRE(clean.err.empty());  // nothing rejected, so an error is the only line
}

std::vector<BadInput> with(std::vector<BadInput> rows, const std::vector<BadInput>& more) {
  rows.insert(rows.end(), more.begin(), more.end());
  return rows;
}

}  // namespace

TEST_CASE("bad input: toy_urn exits 2 with one line naming the flag or file and leaves nothing behind") {
  Fixture fixture;
  fixture.make_checkpoints("toy_urn", kTiny, "bimodal");
  check_bad_inputs(fixture, "toy_urn", kTiny,
                   with(common_rows("bimodal"),
                        {
                            {"an unexpected argument", "extra", {"'extra'"}},
                            {"--compare with another app's checkpoint", "--compare {dir}/other.ckpt", {"{dir}/other.ckpt", "app 'bimodal'"}},
                            {"--compare with a truncated checkpoint", "--compare {dir}/truncated_own.ckpt", {"{dir}/truncated_own.ckpt"}},
                            {"--compare with /dev/urandom", "--compare /dev/urandom", {"/dev/urandom", "not a regular file"}, true},
                            {"--compare with a FIFO", "--compare {dir}/fifo", {"{dir}/fifo", "FIFO"}, true},
                            {"--compare with a 2 GiB file", "--compare {dir}/huge.ckpt", {"{dir}/huge.ckpt", "2147483648 bytes"}, true},
                            {"zero Monte-Carlo samples for --s1", "--s1 --s1-samples 0", {"--s1-samples", "got 0"}},
                            {"--s1 with an --out that cannot be created", "--s1 --s1-samples 10 --out /proc/not_here",
                             {"--out", "/proc/not_here"}},
                        }),
                   true);
}

TEST_CASE("bad input: bimodal exits 2 with one line naming the flag or file and leaves nothing behind") {
  Fixture fixture;
  fixture.make_checkpoints("bimodal", kTiny, "toy_urn");
  check_bad_inputs(fixture, "bimodal", kTiny,
                   with(common_rows("toy_urn"),
                        {
                            {"an unexpected argument", "extra", {"'extra'"}},
                            {"a loss of another app", "--loss em1", {"--loss", "'em1'"}},
                            {"--compare with an EMPL checkpoint, not a Gaussian one", "--compare {dir}/own.ckpt",
                             {"{dir}/own.ckpt", "loss 'empl', expected 'gauss'"}},
                            {"--compare with a checkpoint with a flipped byte", "--compare {dir}/flipped_own.ckpt",
                             {"{dir}/flipped_own.ckpt"}},
                            {"--compare with /dev/zero", "--compare /dev/zero", {"/dev/zero", "not a regular file"}, true},
                            {"--compare with a FIFO", "--compare {dir}/fifo", {"{dir}/fifo", "FIFO"}, true},
                        }),
                   true);
}

TEST_CASE("bad input: bundesliga training exits 2 with one line naming the flag or file and leaves nothing behind") {
  Fixture fixture;
  fixture.make_checkpoints("bundesliga", kTinyBundesliga + " --data " + kShared, "toy_urn");
  write_clean_results(fixture);
  // Broken results: empty, another table, cut in the middle of a row, whole rows that stop mid-season.
  const std::string shared = slurp(kShared);
  write(fixture.folder.file("empty.csv"), "");
  write(fixture.folder.file("garbled.csv"), "this is not,a results table\n1,2,3\n");
  write(fixture.folder.file("cut.csv"), shared.substr(0, shared.find(',', shared.size() / 2) + 1));
  write(fixture.folder.file("partial.csv"), first_lines(1000));
  check_bad_inputs(fixture, "bundesliga", kTinyBundesliga + " --data {data}",
                   with(common_rows("toy_urn"),
                        {
                            {"an unknown command", "extra", {"'extra'"}},
                            {"zero replays", "--replays 0", {"--replays", "got 0"}},
                            {"negative bootstrap draws", "--bootstrap -1", {"--bootstrap", "got -1"}},
                            {"a missing results file", "--data /nonexistent.csv", {"/nonexistent.csv", "No such file"}},
                            {"a directory as results file", "--data {dir}/folder", {"{dir}/folder", "directory"}},
                            {"an empty results file", "--data {dir}/empty.csv", {"{dir}/empty.csv", "empty"}},
                            {"a results file with another header", "--data {dir}/garbled.csv", {"{dir}/garbled.csv", "header"}},
                            {"a results file cut in the middle of a row", "--data {dir}/cut.csv", {"{dir}/cut.csv", "truncated"}},
                            {"a results file that stops in 1996-97", "--data {dir}/partial.csv", {"{dir}/partial.csv", "incomplete"}},
                            {"/dev/zero as results file", "--data /dev/zero", {"/dev/zero", "not a regular file"}, true},
                            {"a FIFO as results file", "--data {dir}/fifo", {"{dir}/fifo", "FIFO"}, true},
                            {"a 100 MiB results file", "--data {dir}/huge.csv", {"{dir}/huge.csv", "104857600 bytes"}, true},
                            {"a batch larger than the data", "--data {clean} --batch 100000", {"--batch", "100000"}},
                            {"an unknown --figure-clubs", "--data {clean} --figure-clubs Nowhere", {"--figure-clubs", "'Nowhere'"}},
                        }),
                   true);
}

TEST_CASE("bad input: bundesliga table exits 2 with one line naming the flag or file") {
  Fixture fixture;
  write_clean_results(fixture);
  write(fixture.folder.file("garbled.csv"), "this is not,a results table\n1,2,3\n");
  check_bad_inputs(fixture, "bundesliga", "table",
                   {
                       {"no --season", "--data {data}", {"--season"}},
                       {"a week beyond the season", "--season 1997-98 --week 99 --data {data}", {"--week", "99"}},
                       {"week zero", "--season 1997-98 --week 0 --data {data}", {"--week", "0"}},
                       {"a week that is not a number", "--season 1997-98 --week abc --data {data}", {"--week", "'abc'"}},
                       {"a season not in the data", "--season 1800-01 --data {clean}", {"--season", "1800-01"}},
                       {"a missing results file", "--season 1997-98 --data /nonexistent.csv", {"/nonexistent.csv"}},
                       {"a results file with another header", "--season 1997-98 --data {dir}/garbled.csv", {"{dir}/garbled.csv"}},
                       {"an unknown flag", "--season 1997-98 --bogus --data {data}", {"bogus"}},
                       {"an extra argument", "frobnicate --season 1997-98 --data {data}", {"'frobnicate'"}},
                       {"/dev/zero as results file", "--season 1997-98 --data /dev/zero", {"/dev/zero", "not a regular file"}, true},
                       {"/dev/urandom as results file", "--season 1997-98 --data /dev/urandom", {"/dev/urandom", "not a regular file"}, true},
                       {"a FIFO as results file", "--season 1997-98 --data {dir}/fifo", {"{dir}/fifo", "FIFO"}, true},
                       {"a 100 MiB results file", "--season 1997-98 --data {dir}/huge.csv", {"{dir}/huge.csv", "104857600 bytes"}, true},
                   },
                   false);
}

// empl_fit: the rows every training app shares, bad data files (each named with its row or line
// and the value), and predict's own rows, against a model of 1 feature and 2 bins.
namespace {

void write_fit_files(const Fixture& fixture) {
  write(fixture.folder.file("x.csv"), "f\n0.1\n0.5\n0.9\n0.3\n");
  write(fixture.folder.file("h.csv"), "0.5,0.5\n0.2,0.8\n1,0\n0.25,0.75\n");
  write(fixture.folder.file("x_short.csv"), "0.1\n0.5\n0.9\n");
  write(fixture.folder.file("h_sum.csv"), "0.5,0.5\n0.2,0.7\n1,0\n0.25,0.75\n");
  write(fixture.folder.file("h_negative.csv"), "0.5 0.5\n0.2 0.8\n1.5 -0.5\n0.25 0.75\n");
  write(fixture.folder.file("h_nan.csv"), "0.5,0.5\n0.2,0.8\n1,0\n0.25,nan\n");
  write(fixture.folder.file("x_ragged.csv"), "f\n0.1\n0.5,1\n0.9\n0.3\n");
  write(fixture.folder.file("x_word.csv"), "0.1\n0.5\nhalf\n0.3\n");
  write(fixture.folder.file("x_three.csv"), "1,2,3\n4,5,6\n");
  write(fixture.folder.file("h_other.csv"), "0.5,0.5\n0.3,0.7\n1,0\n0.25,0.75\n");
}

const std::string kFitData = "train --x {dir}/x.csv --y {dir}/h.csv --hidden 8 --val-fraction 0.25 " + kTiny;

}  // namespace

TEST_CASE("bad input: empl_fit train exits 2 with one line naming the flag, or the file, row and value, and leaves nothing behind") {
  Fixture fixture;
  write_fit_files(fixture);
  fixture.make_checkpoints("empl_fit", fixture.expand(kFitData), "toy_urn");
  check_bad_inputs(fixture, "empl_fit", kFitData,
                   with(common_rows("toy_urn"),
                        {
                            {"an unexpected argument", "extra", {"'extra'"}},
                            {"a loss of another app", "--loss gauss", {"--loss", "'gauss'"}},
                            {"rows of X and H that do not match", "--x {dir}/x_short.csv", {"{dir}/x_short.csv", "3 rows", "{dir}/h.csv", "4"}},
                            {"a histogram that does not sum to 1", "--y {dir}/h_sum.csv", {"{dir}/h_sum.csv", "row 1 (line 2)", "sums to 0.9", "--normalise"}},
                            {"a negative entry", "--y {dir}/h_negative.csv --normalise", {"{dir}/h_negative.csv", "row 2 (line 3)", "column 2", "-0.5"}},
                            {"a NaN entry", "--y {dir}/h_nan.csv", {"{dir}/h_nan.csv", "line 4", "column 2", "nan"}},
                            {"a ragged row of X", "--x {dir}/x_ragged.csv", {"{dir}/x_ragged.csv", "line 3", "2 values"}},
                            {"a word in X", "--x {dir}/x_word.csv", {"{dir}/x_word.csv", "line 3", "'half'"}},
                            {"a missing --x", "--x /nonexistent.csv", {"/nonexistent.csv", "No such file"}},
                            {"a validation fraction of 1.5", "--val-fraction 1.5", {"--val-fraction", "1.5"}},
                            {"a hidden layer of width 0", "--hidden 0", {"--hidden", "'0'"}},
                            {"hidden widths that are not numbers", "--hidden 64,abc", {"--hidden", "'64,abc'"}},
                            {"--resume on other data of the same shapes", "--y {dir}/h_other.csv --resume {dir}/own.ckpt",
                             {"{dir}/own.ckpt", "cannot resume", "data '"}},
                            {"--normalise and --counts together", "--normalise --counts", {"--normalise", "--counts"}},
                            {"/dev/zero as --x", "--x /dev/zero", {"/dev/zero", "not a regular file"}, true},
                            {"a FIFO as --y", "--y {dir}/fifo", {"{dir}/fifo", "FIFO"}, true},
                        }),
                   true);
}

TEST_CASE("bad input: empl_fit predict exits 2 with one line naming the flag, or the file, row and value, and writes nothing") {
  Fixture fixture;
  write_fit_files(fixture);
  const RunResult trained = run_app_binary("empl_fit", fixture.expand(kFitData + " --out {dir}/model"));
  INFO(trained.err);
  REQUIRE(trained.status == 0);
  fixture.make_checkpoint("toy_urn", "toy.ckpt", kTiny);
  check_bad_inputs(fixture, "empl_fit", "predict",
                   {
                       {"a model for other shapes", "--model {dir}/model --x {dir}/x_three.csv --out {dir}/out", {"{dir}/x_three.csv", "3 columns", "1 features"}},
                       {"another app's checkpoint as model", "--model {dir}/toy.ckpt --x {dir}/x.csv --out {dir}/out", {"{dir}/toy.ckpt", "app 'toy_urn'"}},
                       {"a missing model", "--model {dir}/nowhere --x {dir}/x.csv --out {dir}/out", {"{dir}/nowhere", "No such file"}},
                       {"a level above 1", "--model {dir}/model --x {dir}/x.csv --tau 0.5,1.5 --out {dir}/out", {"--tau", "'1.5'"}},
                       {"a level that is not a number", "--model {dir}/model --x {dir}/x.csv --tau 0.5,,0.9 --out {dir}/out", {"--tau", "''"}},
                       {"a word in X", "--model {dir}/model --x {dir}/x_word.csv --out {dir}/out", {"{dir}/x_word.csv", "line 3", "'half'"}},
                       {"no --x", "--model {dir}/model --out {dir}/out", {"--x"}},
                       {"an unknown flag", "--model {dir}/model --x {dir}/x.csv --bogus --out {dir}/out", {"bogus"}},
                       {"--out that cannot be created", "--model {dir}/model --x {dir}/x.csv --out /proc/not_here", {"--out", "/proc/not_here"}},
                       {"a FIFO as X", "--model {dir}/model --x {dir}/fifo --out {dir}/out", {"{dir}/fifo", "FIFO"}, true},
                   },
                   false);
}

TEST_CASE("bad input: empl_fit without a known command exits 2 naming it") {
  Fixture fixture;
  check_bad_inputs(fixture, "empl_fit", "",
                   {
                       {"no command", "", {"give a command"}},
                       {"an unknown command", "fit --x a", {"'fit'"}},
                       {"zero example rows", "example --rows 0 --out {dir}/urn", {"--rows", "got 0"}},
                   },
                   false);
}
