// Any bytes as a metrics textfile (telemetry/open_metrics.h): parsed into samples and read as `ab`'s series per
// communicator rank, never a crash, a hang or undefined behaviour (Prometheus hands `ab --prometheus` whatever a
// scrape of any exporter left).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "telemetry/open_metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nccl_roce::telemetry;
  auto samples = parseTextfile(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!samples.isOk()) return 0;
  auto ranks = readAbSeries(*samples);
  if (!ranks.isOk()) return 0;
  for (const RankSeries& r : *ranks) {
    for (const auto& [cell, timings] : r.timings) {
      if (timings.count > (uint64_t{1} << 53) * samples->size()) __builtin_trap();
    }
  }
  return 0;
}
