// io/atomic_file: write to a temporary file beside the destination, fsync it, rename it over the
// destination (one atomic step on POSIX), fsync the folder; on any error remove the temporary.
// No equation. Read io/atomic_file.hpp first.
#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.hpp"

namespace empl {
namespace {

std::string reason() { return std::strerror(errno); }

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // The rename would replace whatever is there: never a device, a FIFO or a socket (as root,
  // --save /dev/null would otherwise turn /dev/null into a regular file).
  struct stat existing;
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode))
    fail("cannot write ", path, ": it is ", kind_of(existing.st_mode), ", not a regular file");
  std::string temporary = (folder / ("." + target.filename().string() + ".tmpXXXXXX")).string();
  const int fd = mkstemp(temporary.data());
  if (fd < 0) fail("cannot write ", path, ": ", reason());
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = reason();
      ::close(fd);
      ::unlink(temporary.c_str());
      fail("cannot write ", path, ": ", why);
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp creates the file 0600; results should be as readable as any file the user writes.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = reason();
    ::unlink(temporary.c_str());
    fail("cannot write ", path, ": ", why);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = reason();
    ::unlink(temporary.c_str());
    fail("cannot write ", path, ": ", why);
  }
  // Make the rename itself durable.
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

InputFile::InputFile(const std::string& path, uint64_t max_bytes, const char* what) : path_(path) {
  if (path.empty()) fail("cannot read a file with an empty path");
  struct stat before;
  if (::stat(path.c_str(), &before) != 0) fail("cannot read ", path, ": ", reason());
  if (!S_ISREG(before.st_mode)) fail("cannot read ", path, ": it is ", kind_of(before.st_mode), ", not a regular file");
  if (static_cast<uint64_t>(before.st_size) > max_bytes)
    fail("cannot read ", path, ": ", before.st_size, " bytes, more than the ", max_bytes, " a ", what, " may have");
  // O_NONBLOCK: should the path have been swapped for a FIFO since the stat, open returns at once
  // instead of waiting for a writer; the fstat below then refuses it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) fail("cannot read ", path, ": ", reason());
  struct stat opened;
  if (::fstat(fd_, &opened) != 0 || !S_ISREG(opened.st_mode) || opened.st_ino != before.st_ino ||
      opened.st_dev != before.st_dev || static_cast<uint64_t>(opened.st_size) > max_bytes) {
    ::close(fd_);
    fd_ = -1;
    fail("cannot read ", path, ": the file changed while it was opened");
  }
  size_ = static_cast<uint64_t>(opened.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::read_into(char* destination, size_t n) {
  if (n > size_ - at_) fail("cannot read ", path_, ": ", n, " bytes wanted at offset ", at_, ", the file has ", size_);
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd_, destination + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("cannot read ", path_, ": ", reason());
    if (got == 0) fail("cannot read ", path_, ": the file ended at ", at_ + done, " bytes, it had ", size_, " when opened");
    done += static_cast<size_t>(got);
  }
  at_ += n;
}

std::string InputFile::read(size_t n) {
  std::string bytes(n, '\0');  // n is within size_, itself within the reader's maximum
  read_into(bytes.data(), n);
  return bytes;
}

void InputFile::expect_end() {
  char extra;
  ssize_t got;
  do got = ::read(fd_, &extra, 1);
  while (got < 0 && errno == EINTR);
  if (got != 0) fail("cannot read ", path_, ": the file holds more than the ", size_, " bytes it had when opened");
}

std::string read_file(const std::string& path, uint64_t max_bytes, const char* what) {
  InputFile file(path, max_bytes, what);
  std::string bytes = file.read(file.size());
  file.expect_end();
  return bytes;
}

namespace {

// The folders create_directories(path) would make, outermost first (empty when path exists).
std::vector<std::filesystem::path> missing_folders(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> missing;
  std::error_code error;
  for (std::filesystem::path p = path; !p.empty() && !std::filesystem::exists(p, error); p = p.parent_path()) {
    missing.insert(missing.begin(), p);
    if (p == p.parent_path()) break;
  }
  return missing;
}

}  // namespace

OutputDirectory::OutputDirectory(std::string path) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (path_.empty()) fail("--out: the path is empty");
  if (fs::exists(path_, error)) {
    if (!fs::is_directory(path_, error)) fail("--out ", path_, ": exists and is not a directory");
    if (::access(path_.c_str(), W_OK | X_OK) != 0) fail("--out ", path_, ": cannot write into the directory: ", reason());
    return;
  }
  // Proves the folder can be made and written into, then removes what it made: the first write()
  // makes it again.
  const std::vector<fs::path> made = missing_folders(fs::path(path_).lexically_normal());
  const auto unmake = [&] {
    for (auto folder = made.rbegin(); folder != made.rend(); ++folder) fs::remove(*folder, error);
  };
  if (!fs::create_directories(path_, error) || error) {
    const std::string why = error ? error.message() : "unknown reason";
    unmake();
    fail("--out ", path_, ": cannot create the directory: ", why);
  }
  if (::access(path_.c_str(), W_OK | X_OK) != 0) {
    const std::string why = reason();
    unmake();
    fail("--out ", path_, ": cannot write into the directory: ", why);
  }
  unmake();
  pending_ = true;
}

OutputDirectory::~OutputDirectory() = default;

std::string OutputDirectory::path_of(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }

std::string OutputDirectory::write(const std::string& name, std::string_view bytes) {
  if (pending_) {
    std::error_code error;
    std::filesystem::create_directories(path_, error);
    if (error) fail("--out ", path_, ": cannot create the directory: ", error.message());
    pending_ = false;
  }
  const std::string file = path_of(name);
  write_file_atomically(file, bytes);
  return file;
}

}  // namespace empl
