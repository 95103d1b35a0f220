// Any bytes as an NVIDIA Inspector dump: read and joined to a fleet, never a crash, a hang or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fleet/fleet.h"
#include "fleet/inspector_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nccl_roce::fleet;
  auto dump = parseInspectorDump(std::string(reinterpret_cast<const char*>(data), size), "fuzz.log");
  if (!dump.isOk()) return 0;
  const std::vector<CommunicatorRecord>& records = dump->records;
  std::vector<CommunicatorRecord> arms;
  for (const CommunicatorRecord& r : records) {
    CommunicatorRecord withArm = r;
    withArm.fromStatistics = true;
    withArm.arm = r.commId % 2 ? "control" : "candidate";
    withArm.timings.clear();
    arms.push_back(withArm);
  }
  (void)assembleFleet(arms, records);
  return 0;
}
