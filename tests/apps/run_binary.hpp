// Runs an app binary of this build for end-to-end tests and captures its exit status and output.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace empl::testing {

struct RunResult {
  int status = -1;  // the exit status (128 + signal when killed by one)
  std::string out, err;
  double seconds = 0.0;  // wall time of the run
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// `arguments` are appended to the binary's path as they are (quote paths with spaces yourself).
// A run that hangs (a reader blocked on a FIFO) is killed after `limit_seconds`: its status is
// then 128 + 9, and the test fails instead of hanging the suite.
inline RunResult run_app_binary(const std::string& app, const std::string& arguments, int limit_seconds = 600) {
  const auto folder = std::filesystem::temp_directory_path();
  const std::string tag = std::to_string(::getpid()) + "_" + std::to_string(std::rand());
  const std::string out = (folder / ("empl_out_" + tag)).string(), err = (folder / ("empl_err_" + tag)).string();
  const std::string command = "timeout -s KILL " + std::to_string(limit_seconds) + " " + std::string(EMPL_BINARY_DIR) + "/" + app + " " + arguments + " > " + out + " 2> " + err + " < /dev/null";
  const auto start = std::chrono::steady_clock::now();
  const int raw = std::system(command.c_str());
  RunResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  result.out = slurp(out);
  result.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return result;
}

// A fresh folder under the system's temporary directory, removed at the end of the test.
struct TemporaryFolder {
  std::filesystem::path path;
  TemporaryFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "empl_test_XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TemporaryFolder() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

inline int count_lines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

}  // namespace empl::testing
