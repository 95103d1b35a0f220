// Any bytes as an NVIDIA Inspector dump, or as any file of a collected fleet directory: read, classified and
// joined to a fleet, never a crash, a hang or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fleet/fleet.h"
#include "fleet/fleet_files.h"
#include "fleet/inspector_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nccl_roce::fleet;
  std::string text(reinterpret_cast<const char*>(data), size);
  FleetReader reader;
  if (reader.add("fuzz.log", text).isOk()) (void)reader.assemble();
  auto dump = parseInspectorDump(text, "fuzz.log");
  if (!dump.isOk()) return 0;
  std::vector<CommunicatorRecord> arms;
  for (const CommunicatorRecord& r : dump->records) {
    CommunicatorRecord withArm = r;
    withArm.fromStatistics = true;
    withArm.arm = r.commId % 2 ? "control" : "candidate";
    if (r.commId % 3 == 0) withArm.timings.clear();  // some timed by both sources, some by Inspector only
    arms.push_back(withArm);
  }
  (void)assembleFleet(arms, dump->records);
  return 0;
}
