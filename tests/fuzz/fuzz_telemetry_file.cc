// Any bytes as a statistics file (nccl-roce.stats/4, /3 or /2): read by its one reader (telemetry/stats_file.h), and
// whatever reads is written and read back to the same entries; then assembled into a fleet (each entry at its
// latest state), compared and fitted, never a crash, a hang or undefined behaviour (a hand-edited or truncated
// file from one pod must not take `ab` or `ab fit` down).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fleet/ab_comparison.h"
#include "fleet/ab_fit.h"
#include "fleet/ab_fit_policy_text.h"
#include "fleet/telemetry_reader.h"
#include "telemetry/stats_file.h"

namespace {

// What the writer makes of what the reader read reads back to the same rendering.
void roundTrip(const nccl_roce::telemetry::StatsFile& file) {
  using namespace nccl_roce::telemetry;
  std::vector<std::string> texts;
  for (const StatsEntry& e : file.entries) texts.push_back(renderStatsEntry(e));
  std::vector<const std::string*> entries;
  for (const std::string& t : texts) entries.push_back(&t);
  auto again = parseStatsFile(renderStatsFile(file.header, entries), "again.json");
  if (!again.isOk() || again->entries.size() != file.entries.size()) __builtin_trap();
  for (size_t i = 0; i < texts.size(); ++i) {
    if (renderStatsEntry(again->entries[i]) != texts[i]) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nccl_roce::fleet;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto file = nccl_roce::telemetry::parseStatsFile(text, "fuzz.json");
  if (!file.isOk()) return 0;
  roundTrip(*file);
  auto records = parseTelemetryFile(text, "fuzz.json");
  if (!records.isOk()) __builtin_trap();  // the fleet reads what the format's reader reads
  auto fleet = assembleFleet(*records, {});
  if (!fleet.isOk()) return 0;
  (void)compareArms(*fleet, AbOptions{});
  AbFitOptions fit;
  fit.settings.minUnits = 2;  // a fuzzed file holds a handful of communicators: fit them all the same
  auto fitted = fitArms(*fleet, fit);
  if (fitted.isOk()) (void)abFitPolicyToml(*fitted);
  return 0;
}
