// Files that are either whole or absent: a result or a checkpoint is written to a temporary file
// beside its destination, flushed to disk, and renamed over the destination in one step, so a
// crash or a full disk never leaves a half-written file behind (and never destroys the old one).
// Read first among io/: checkpoints and results are written through it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace empl {

// Writes `bytes` to `path` atomically; on failure removes the temporary file and throws
// empl::Error naming the path and the reason.
void write_file_atomically(const std::string& path, std::string_view bytes);

// A regular file opened for reading, its size known before a byte is read. Outside files are
// refused unless stat() says they are regular files: a directory, a device (/dev/zero,
// /dev/urandom: endless) or a FIFO (which would block the open until a writer comes) is never
// opened. A file larger than `max_bytes` is refused too, so no reader's memory grows with a file
// it cannot use. Readers bound each read by the size and by what their format's header promises.
class InputFile {
 public:
  // `what` names the kind of file for the size error: "a checkpoint may have at most ...".
  InputFile(const std::string& path, uint64_t max_bytes, const char* what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  uint64_t size() const { return size_; }
  // Exactly `n` more bytes (n <= what remains of size()); throws when the file ends sooner.
  std::string read(size_t n);
  void read_into(char* destination, size_t n);
  // Throws when the file holds more than size() bytes (it grew while being read, or it is a
  // pseudo-file such as /proc's whose stat size is 0).
  void expect_end();

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0, at_ = 0;
};

// The most bytes a reader of an outside file accepts unless it says otherwise: far above any
// checkpoint or result of these apps, far below a machine's memory.
inline constexpr uint64_t kMaxInputBytes = uint64_t{1} << 30;

// The whole of a regular file of at most `max_bytes`; throws empl::Error naming the path and the
// reason when it cannot be read (see InputFile).
std::string read_file(const std::string& path, uint64_t max_bytes = kMaxInputBytes, const char* what = "file");

// An output folder for an app's results. It is checked at construction (created if needed and
// proven writable), so that a bad --out fails before any training; a folder this object had to
// create is then removed again and made for good only by the first write(), so that a run
// stopped before it wrote anything (an error, a signal while loading) leaves no folder behind.
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
  bool pending_ = false;  // the folder is still to be made by the first write()
};

}  // namespace empl
