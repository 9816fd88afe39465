#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace empl {
namespace {

std::string reason() { return std::strerror(errno); }

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
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

std::string read_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(path, error)) fail("cannot read ", path, ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read ", path, ": ", reason());
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) fail("cannot read ", path, ": read error");
  return content.str();
}

OutputDirectory::OutputDirectory(std::string path) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(path_, error)) {
    if (!fs::is_directory(path_, error)) fail("--out ", path_, ": exists and is not a directory");
  } else {
    if (!fs::create_directories(path_, error) || error)
      fail("--out ", path_, ": cannot create the directory: ", error ? error.message() : "unknown reason");
    created_ = true;
  }
  if (::access(path_.c_str(), W_OK | X_OK) != 0) {
    const std::string why = reason();
    if (created_) fs::remove(path_, error);
    fail("--out ", path_, ": cannot write into the directory: ", why);
  }
}

OutputDirectory::~OutputDirectory() {
  if (created_ && !written_) {
    std::error_code error;
    std::filesystem::remove(path_, error);  // only removes it if it is still empty
  }
}

std::string OutputDirectory::path_of(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }

std::string OutputDirectory::write(const std::string& name, std::string_view bytes) {
  const std::string file = path_of(name);
  write_file_atomically(file, bytes);
  written_ = true;
  return file;
}

}  // namespace empl
