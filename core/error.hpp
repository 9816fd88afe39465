// The one exception type of the library, and the shape of its messages.
//
// Library code never exits or aborts: it throws empl::Error whose message names the op and the
// values involved ("matmul: a is [32,128], b is [64,10]: inner dims 128 != 64"), so that an app's
// main() can print one clear line and exit with a non-zero status.
// Read after core/shape.hpp (whose str() every message prints).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace empl {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Builds a message from any streamable pieces: fail("matmul: a is ", a.shape(), ...).
template <typename... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  std::ostringstream message;
  (message << ... << parts);
  throw Error(message.str());
}

}  // namespace empl
