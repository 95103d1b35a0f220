// Any bytes as a statistics file (nccl-roce.stats/2): read, assembled into a fleet and compared, never a crash,
// a hang or undefined behaviour (a hand-edited or truncated file from one pod must not take `ab` down).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fleet/ab_comparison.h"
#include "fleet/statistics_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nccl_roce::fleet;
  auto records = parseStatisticsFile(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!records.isOk()) return 0;
  auto fleet = assembleFleet(*records, {});
  if (fleet.isOk()) (void)compareArms(*fleet, AbOptions{});
  return 0;
}
