#include "nccl-tests-integration/sweep/sample_set.h"

namespace nccl_roce::sweep {

const char* placementName(Placement placement) {
  return placement == Placement::kInPlace ? "in-place" : "out-of-place";
}

std::string SeriesKey::describe() const {
  std::string out = collective.empty() ? "unknown collective" : collective;
  out += " " + type;
  if (!redop.empty() && redop != "none") out += " " + redop;
  if (root >= 0) out += " root " + std::to_string(root);
  out += ranks > 0 ? ", " + std::to_string(ranks) + " ranks" : ", ranks unknown";
  return out;
}

namespace {

std::string where(const PerfLog& log, const PerfRun& run) {
  return log.source + ":" + std::to_string(run.firstLine);
}

}  // namespace

SampleSet collectSamples(const std::vector<PerfLog>& logs, Placement placement) {
  return collectSamples(logs, placement, [](const PerfRun&) { return true; });
}

SampleSet collectSamples(const std::vector<PerfLog>& logs, Placement placement,
                         const std::function<bool(const PerfRun&)>& accept) {
  SampleSet set;
  bool firstRun = true;
  bool sawCpuTime = false, sawWallTime = false;
  for (const PerfLog& log : logs) {
    for (const PerfRun& run : log.runs) {
      if (!accept(run)) continue;
      if (!run.rejections.empty()) {
        set.notes.push_back(where(log, run) + ": run left out: " + run.rejections.front());
        continue;
      }
      if (run.rows.empty()) continue;
      ++set.runsUsed;
      std::string version = run.ncclVersionDetail.empty() ? run.ncclVersion : run.ncclVersionDetail;
      if (!version.empty()) set.ncclVersions.insert(version);
      (run.cpuTime ? sawCpuTime : sawWallTime) = true;
      if (firstRun) {
        set.environment = run.environment;
        firstRun = false;
      } else {
        for (auto it = set.environment.begin(); it != set.environment.end();) {
          auto other = run.environment.find(it->first);
          it = (other == run.environment.end() || other->second != it->second) ? set.environment.erase(it) : ++it;
        }
      }
      std::map<SeriesKey, verdicts::Unit*> unitOf;  // this run's unit in each series it has rows of
      int skippedWrong = 0, skippedHalf = 0, repeated = 0;
      for (const PerfRow& row : run.rows) {
        const std::optional<PerfHalf>& half = placement == Placement::kInPlace ? row.inPlace : row.outOfPlace;
        if (!half || !half->timeUs || *half->timeUs <= 0) {
          ++skippedHalf;
          continue;
        }
        if (half->wrong.value_or(0) > 0) {
          ++skippedWrong;
          continue;
        }
        SeriesKey key{run.collective, row.type, row.redop, row.root.value_or(-1), run.ranks().value_or(0)};
        verdicts::Unit*& unit = unitOf[key];
        if (unit == nullptr) {
          Series& series = set.series[key];
          series.key = key;
          series.nodes = std::max(series.nodes, run.nodes().value_or(0));
          series.runs.push_back(verdicts::Unit{where(log, run), {}});
          unit = &series.runs.back();
        }
        if (!unit->values.emplace(row.size, *half->timeUs).second) ++repeated;
      }
      if (skippedWrong > 0) {
        set.notes.push_back(where(log, run) + ": " + std::to_string(skippedWrong) +
                            " rows left out: they failed validation (#wrong > 0)");
      }
      if (repeated > 0) {
        set.notes.push_back(where(log, run) + ": " + std::to_string(repeated) +
                            " rows repeat a size already measured in this run: the first is used");
      }
      if (skippedHalf > 0) {
        set.notes.push_back(where(log, run) + ": " + std::to_string(skippedHalf) + " rows have no usable " +
                            placementName(placement) + " time (absent, or 0.00: too short to print)");
      }
    }
  }
  if (sawCpuTime && sawWallTime) {
    set.notes.push_back("some runs report CPU time (-C 1) and others wall time: their times do not compare");
  }
  return set;
}

}  // namespace nccl_roce::sweep
