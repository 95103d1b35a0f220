// Any bytes as a statistics file (nccl-roce.stats/3 or /2): read, assembled into a fleet (each entry at its latest
// state), compared and fitted, never a crash, a hang or undefined behaviour (a hand-edited or truncated file from
// one pod must not take `ab` or `ab fit` down).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fleet/ab_comparison.h"
#include "fleet/ab_fit.h"
#include "fleet/ab_fit_policy_text.h"
#include "fleet/telemetry_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nccl_roce::fleet;
  auto records = parseTelemetryFile(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!records.isOk()) return 0;
  auto fleet = assembleFleet(*records, {});
  if (!fleet.isOk()) return 0;
  (void)compareArms(*fleet, AbOptions{});
  AbFitOptions fit;
  fit.settings.minUnits = 2;  // a fuzzed file holds a handful of communicators: fit them all the same
  auto fitted = fitArms(*fleet, fit);
  if (fitted.isOk()) (void)abFitPolicyToml(*fitted);
  return 0;
}
