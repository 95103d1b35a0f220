#include "nccl-tests-integration/driver/count_check.h"

#include "telemetry/nccl_names.h"

namespace nccl_roce::driver {

namespace {

std::string n(uint64_t value) {
  return std::to_string(value);
}

void count(const telemetry::StatsFile& file, int collective, CountCheck* check) {
  for (const telemetry::StatsEntry& entry : file.entries) {
    const telemetry::CommunicatorSnapshot& comm = entry.comm;
    if (entry.live) {
      check->problems.push_back("entry " + n(entry.number) + " of " + check->statsFile +
                                " is a checkpoint of a live communicator: the process did not finish it");
    }
    if (comm.timings) {
      check->profilerCounted = true;
      for (uint64_t d : comm.timings->dropped) check->dropped += d;
      for (const telemetry::KeyTimings& k : comm.timings->keys) {
        if (k.key.collective == collective) check->timed += k.histogram.count();
      }
    }
    if (comm.decisions) {
      check->tunerCounted = true;
      for (const telemetry::DecisionCount& d : *comm.decisions) {
        if (d.key.collective == collective) check->tunerCalls += d.count;
      }
    }
  }
}

}  // namespace

std::vector<CountCheck> checkCounts(const std::vector<IssuedLine>& issued,
                                    const std::vector<std::pair<std::string, telemetry::StatsFile>>& stats) {
  std::vector<CountCheck> out;
  for (const IssuedLine& line : issued) {
    CountCheck check;
    check.issued = line;
    const telemetry::StatsFile* file = nullptr;
    for (const auto& [path, parsed] : stats) {
      bool sameHost = line.host.empty() || parsed.header.host.empty() || parsed.header.host == line.host;
      if (parsed.header.pid == line.pid && sameHost) {
        file = &parsed;
        check.statsFile = path;
      }
    }
    std::optional<int> collective = telemetry::parseCollective(line.collective);
    if (file == nullptr || !collective) {
      check.problems.push_back(file == nullptr ? "no statistics file of pid " + std::to_string(line.pid) +
                                                     " (was NCCL_ROCE_STATS set?)"
                                               : "unknown collective '" + line.collective + "'");
      out.push_back(check);
      continue;
    }
    count(*file, *collective, &check);
    const IssuedCounts& c = line.counts;
    if (!check.profilerCounted) {
      check.problems.push_back("the file has no timings (was NCCL_PROFILER_PLUGIN=roce set?)");
    } else if (check.timed != c.timed()) {
      check.problems.push_back("timed " + n(check.timed) + " collectives, but " + n(c.timed()) + " ran (" + n(c.eager) +
                               " eager + " + n(c.replayed) + " replayed)");
    }
    if (!check.tunerCounted) {
      check.problems.push_back("the file has no tuner decisions (was NCCL_TUNER_PLUGIN=roce set?)");
    } else if (check.tunerCalls != c.tunerCalls()) {
      check.problems.push_back("the tuner was asked " + n(check.tunerCalls) + " times, but " + n(c.tunerCalls()) +
                               " collectives were planned (" + n(c.eager) + " eager + " + n(c.captured) + " captured)");
    }
    if (check.dropped > 0) check.problems.push_back(n(check.dropped) + " profiler events dropped");
    out.push_back(check);
  }
  return out;
}

std::string describeCountCheck(const CountCheck& c) {
  const IssuedCounts& i = c.issued.counts;
  std::string out = "rank " + std::to_string(c.issued.rank) + " (pid " + std::to_string(c.issued.pid) + ") " +
                    c.issued.collective + ": issued " + n(i.eager) + " eager, " + n(i.captured) + " captured, " +
                    n(i.replayed) + " replayed; ";
  if (c.statsFile.empty()) return out + "no statistics";
  out += "timed " + (c.profilerCounted ? n(c.timed) : "-") + ", tuner calls " +
         (c.tunerCounted ? n(c.tunerCalls) : "-") + ", " + n(c.dropped) + " dropped";
  for (const std::string& p : c.problems) out += "; " + p;
  return out;
}

}  // namespace nccl_roce::driver
