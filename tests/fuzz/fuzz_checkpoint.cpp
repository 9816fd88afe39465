// libFuzzer target: any bytes given to the checkpoint parser are refused with empl::Error or
// parsed; never a crash, a hang or a huge allocation. Run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "io/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const empl::Checkpoint checkpoint = empl::parse_checkpoint(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    // What parsed must round-trip.
    const std::string again = empl::checkpoint_bytes(checkpoint.tensors, checkpoint.metadata);
    empl::parse_checkpoint(again, "fuzz round trip");
  } catch (const empl::Error&) {
  }
  return 0;
}
