// Comparisons that cannot show what they are run for, named in `sweep compare`'s notes:
// - an A/A at a size: both sides ran the same configuration there, by NCCL's own TUNING lines (the algorithm,
//   protocol and channels of every call at that size are the same set on both sides) or, without them, because
//   every run of both sides forced the same configuration through NCCL's variables (forced_config.h; not NCCL's
//   default, which a tuner plugin the log does not name may have changed). A difference there is noise, whatever
//   the policies were called: the first GPU run of the `inference` policy against NCCL's own was one at every size
//   (docs/gpu-proof.md);
// - flat timings on a side (verdicts/flat_timings.h): a time-sliced or saturated device, whose times compare
//   nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "inspect/nccl_info_log.h"
#include "nccl-tests-integration/sweep/compare.h"
#include "nccl-tests-integration/sweep/forced_config.h"
#include "nccl-tests-integration/sweep/perf_log.h"
#include "telemetry/choice.h"

namespace nccl_roce::sweep {

// What one side ran.
struct SideConfigurations {
  // Per (collective, size as nccl-tests prints it: the tuner's bytes), the choices its TUNING lines show: algorithm,
  // protocol and channels (no chunk size: the lines do not show it).
  std::map<std::pair<int, uint64_t>, std::set<telemetry::Choice>> ran;
  // The configuration every run of the side forced, when they all forced the same one (NCCL default included).
  std::optional<ForcedConfig> forced;
};

// `nccl` holds NCCL's lines of the same files as `logs` (any order; none when the logs carry none).
SideConfigurations configurationsOf(const std::vector<PerfLog>& logs, const std::vector<inspect::NcclInfoLog>& nccl);

// One note per series and kind: the sizes compared as an A/A, and a side whose times are flat.
std::vector<std::string> degenerateNotes(const Comparison& comparison, const SideConfigurations& a,
                                         const SideConfigurations& b);

}  // namespace nccl_roce::sweep
