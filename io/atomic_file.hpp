// Files that are either whole or absent: a result or a checkpoint is written to a temporary file
// beside its destination, flushed to disk, and renamed over the destination in one step, so a
// crash or a full disk never leaves a half-written file behind (and never destroys the old one).
#pragma once

#include <string>
#include <string_view>

namespace empl {

// Writes `bytes` to `path` atomically; on failure removes the temporary file and throws
// empl::Error naming the path and the reason.
void write_file_atomically(const std::string& path, std::string_view bytes);

// The whole file; throws empl::Error naming the path and the reason when it cannot be read.
std::string read_file(const std::string& path);

// An output folder for an app's results. It is checked (created if needed, and proven writable)
// at construction, so that a bad --out fails before any training; a folder this object created
// is removed again if nothing was written into it.
class OutputDirectory {
 public:
  explicit OutputDirectory(std::string path);
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  // Writes a file inside the folder atomically and returns its path.
  std::string write(const std::string& name, std::string_view bytes);
  std::string path_of(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool created_ = false;
  bool written_ = false;
};

}  // namespace empl
