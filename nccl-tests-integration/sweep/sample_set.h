// Measurements grouped for statistics: per series (collective, type, op, root, ranks), one unit per run (log
// file, table, or -N cycle) holding that run's time at each size. The run is the unit of the statistics
// (stats/unit_comparison.h): a run slow at every size is one sample, not one per size.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "nccl-tests-integration/sweep/perf_log.h"
#include "verdicts/unit_comparison.h"

namespace nccl_roce::sweep {

enum class Placement { kOutOfPlace, kInPlace };
const char* placementName(Placement placement);  // "out-of-place", "in-place"

struct SeriesKey {
  std::string collective;  // "" when the log does not say and the rows do not tell
  std::string type;
  std::string redop;
  int64_t root = -1;
  int ranks = 0;  // 0: unknown

  bool operator<(const SeriesKey& other) const {
    return std::tie(collective, type, redop, root, ranks) <
           std::tie(other.collective, other.type, other.redop, other.root, other.ranks);
  }
  bool operator==(const SeriesKey& other) const {
    return std::tie(collective, type, redop, root, ranks) ==
           std::tie(other.collective, other.type, other.redop, other.root, other.ranks);
  }
  // "all_reduce float sum, 16 ranks"
  std::string describe() const;
};

struct Series {
  SeriesKey key;
  std::vector<verdicts::Unit> runs;  // per run that contributed rows: size -> time (us); named "file:line"
  int nodes = 0;                     // distinct hosts in those runs' device lists (0: unknown)
};

struct SampleSet {
  std::map<SeriesKey, Series> series;
  std::map<std::string, std::string> environment;  // variables every used run agrees on
  int runsUsed = 0;
  std::set<std::string> ncclVersions;  // as the used runs printed them ("2.22.3+cuda12.2"); empty when none did
  std::vector<std::string> notes;      // runs and rows left out, and why
};

// Every run without rejections contributes its rows' `placement` times. Rows that failed validation
// (#wrong > 0) and rows without that half are left out, with a note.
SampleSet collectSamples(const std::vector<PerfLog>& logs, Placement placement);
// The same over the runs `accept` says yes to (fit: the runs of one configuration).
SampleSet collectSamples(const std::vector<PerfLog>& logs, Placement placement,
                         const std::function<bool(const PerfRun&)>& accept);

}  // namespace nccl_roce::sweep
