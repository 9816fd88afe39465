// libFuzzer target: the .npy reader refuses or parses any bytes; what it parses round-trips.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const empl::Tensor tensor = empl::parse_npy(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    empl::parse_npy(empl::npy_bytes(tensor), "fuzz round trip");
  } catch (const empl::Error&) {
  }
  return 0;
}
