#include "fleet/fleet.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/log.h"
#include "common/strings.h"
#include "fleet/experiment_choice.h"
#include "fleet/switchback_ranks.h"

namespace nccl_roce::fleet {

namespace {

// Files naming different experiments (by name or content hash) cannot be compared: the arms mean different things.
Status checkOneExperiment(const std::vector<CommunicatorRecord>& records, std::string* experiment) {
  const CommunicatorRecord* first = nullptr;
  for (const CommunicatorRecord& r : records) {
    if (r.experiment.empty()) continue;
    if (first == nullptr) {
      first = &r;
      continue;
    }
    if (r.experiment != first->experiment) {
      return Status(StatusCode::kInvalidArgument,
                    "statistics from different experiments: " + first->file + " has '" + first->experiment + "' (" +
                        first->experimentHash + "), " + r.file + " has '" + r.experiment + "' (" + r.experimentHash +
                        "); compare one experiment at a time: name it with --experiment (the inputs hold " +
                        experimentsNamed(records) + ")");
    }
    if (r.experimentHash != first->experimentHash) {
      return Status(StatusCode::kInvalidArgument,
                    "statistics from two versions of experiment '" + r.experiment +
                        "' (its file changed while it "
                        "ran, and its arms with it): " +
                        first->file + " has " + first->experimentHash + ", " + r.file + " has " + r.experimentHash +
                        "; compare one version at a time: name it with --experiment and its hash, e.g. --experiment " +
                        r.experimentHash);
    }
  }
  *experiment = first ? first->experiment : "";
  return Status::ok();
}

// Merges one rank's arm and identity into its communicator; false when the rank decided differently.
bool mergeIdentity(FleetCommunicator& c, const CommunicatorRecord& r, std::string* why) {
  if (c.records == 0) {
    c.arm = r.arm;
    c.policy = r.policy;
    c.policyHash = r.policyHash;
    c.nNodes = r.nNodes;
    return true;
  }
  if (c.arm != r.arm || c.policyHash != r.policyHash) {
    *why = "communicator " + formatHexId(r.commId) + ": ranks disagree (arm '" + c.arm + "', policy " + c.policyHash +
           " in " + *c.files.begin() + "; arm '" + r.arm + "', policy " + r.policyHash + " in " + r.file +
           "): ranks that decide differently can hang (NVIDIA/nccl#1136); left out: every pod of a job must load "
           "the same policy and experiment files (NCCL_ROCE_POLICY)";
    return false;
  }
  if (c.nNodes != 0 && r.nNodes != 0 && c.nNodes != r.nNodes) {
    *why = "communicator " + formatHexId(r.commId) + ": ranks disagree on the node count (" + std::to_string(c.nNodes) +
           " in " + *c.files.begin() + ", " + std::to_string(r.nNodes) + " in " + r.file +
           "): left out: NCCL gives every rank the same count, so one of them was edited or damaged: re-copy them "
           "from their pods";
    return false;
  }
  if (c.nNodes == 0) c.nNodes = r.nNodes;
  return true;
}

using ClockTimings = std::map<TimingClock, std::map<uint64_t, CellTiming>>;

// One rank's timings into its communicator's: counts and bin sums added, the collectives the most any rank timed.
void addRank(ClockTimings& into, const CommunicatorRecord& r) {
  for (const auto& [clock, cells] : r.timings) {
    for (const auto& [cell, timings] : cells) {
      CellTiming& t = into[clock][cell];
      t.durations.add(timings);
      t.collectives = std::max(t.collectives, timings.count);
    }
  }
}

// Where a communicator's GPU timings from our profiler and from Inspector differ by more than kSourcesDisagreeBy.
std::string disagreement(uint64_t commId, const ClockTimings& ours, const ClockTimings& inspector) {
  auto a = ours.find(TimingClock::kGpu), b = inspector.find(TimingClock::kGpu);
  if (a == ours.end() || b == inspector.end()) return "";
  std::string cells;
  for (const auto& [cell, timing] : a->second) {
    auto other = b->second.find(cell);
    if (other == b->second.end()) continue;
    std::optional<double> x = timing.durations.geometricMeanNs(), y = other->second.durations.geometricMeanNs();
    if (!x || !y || std::fabs(std::log(*x / *y)) <= std::log1p(kSourcesDisagreeBy)) continue;
    cells +=
        format("%s%s %.1f vs %.1f us", cells.empty() ? "" : ", ", describeCell(cell).c_str(), *x / 1000, *y / 1000);
  }
  return cells.empty() ? "" : formatHexId(commId) + " (" + cells + ")";
}

std::vector<std::string> hexes(const std::set<uint64_t>& ids) {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (uint64_t id : ids) out.push_back(formatHexId(id));
  return out;
}

// "a, b, c and 4 more"
std::string someOf(const std::vector<std::string>& items, size_t shown = 3) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < shown; ++i) out += (i == 0 ? "" : ", ") + items[i];
  if (items.size() > shown) out += " and " + std::to_string(items.size() - shown) + " more";
  return out;
}

// The notes of what reading and merging dropped or chose, each with its count.
struct Tally {
  uint64_t zeroDurations = 0;
  std::set<uint64_t> zeroCommunicators;  // named by id, as files and Prometheus' series both name them
  int byProfiler = 0, inspectorOnly = 0;
  std::vector<std::string> both, disagreeing;
  std::map<TimingClock, uint64_t> cpuCollectives;
  int cpuCommunicators = 0;

  void countZeros(const CommunicatorRecord& r) {
    zeroDurations += r.zeroDurations;
    if (r.zeroDurations > 0) zeroCommunicators.insert(r.commId);
  }
  void addNotes(std::vector<std::string>& notes) const {
    if (zeroDurations > 0) {
      notes.push_back(std::to_string(zeroDurations) + " collective(s) timed at zero (at or below 0.1 us, which " +
                      "no collective takes) dropped, in communicator(s) " + someOf(hexes(zeroCommunicators)));
    }
    if (inspectorOnly > 0) {
      notes.push_back(std::to_string(inspectorOnly) + " communicator(s) timed by NVIDIA Inspector only: its " +
                      "timings used for them (" + std::to_string(byProfiler) + " timed by nccl-roce's profiler)");
    }
    if (!both.empty()) {
      notes.push_back(std::to_string(both.size()) + " communicator(s) timed by both nccl-roce's profiler and " +
                      "Inspector (" + someOf(both) + "): nccl-roce's timings used, Inspector's left aside");
    }
    if (!disagreeing.empty()) {
      notes.push_back(format("%zu of them differ between the two by more than %.0f%%: ", disagreeing.size(),
                             kSourcesDisagreeBy * 100) +
                      someOf(disagreeing));
    }
    if (cpuCommunicators > 0) {
      std::string counts;
      for (const auto& [clock, n] : cpuCollectives) {
        counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + timingClockName(clock);
      }
      notes.push_back(std::to_string(cpuCommunicators) + " communicator(s) hold collectives timed on the CPU (" +
                      counts + "): kept apart from GPU timings, never pooled with them (ab compares them on their " +
                      "own, ab fit fits GPU timings only)");
    }
  }
};

// The timings a communicator is compared by: our profiler's where it has them, else Inspector's.
void chooseTimings(FleetCommunicator& c, ClockTimings&& ours, ClockTimings&& inspector, Tally& tally) {
  if (!ours.empty()) {
    c.timings = std::move(ours);
    c.timedBy = TimedBy::kProfiler;
    ++tally.byProfiler;
    if (!inspector.empty()) {
      tally.both.push_back(formatHexId(c.commId));
      std::string differs = disagreement(c.commId, c.timings, inspector);
      if (!differs.empty()) tally.disagreeing.push_back(differs);
    }
  } else if (!inspector.empty()) {
    c.timings = std::move(inspector);
    c.timedBy = TimedBy::kInspector;
    ++tally.inspectorOnly;
  }
  bool cpu = false;
  for (const auto& [clock, cells] : c.timings) {
    if (clock == TimingClock::kGpu) continue;
    cpu = true;
    for (const auto& [cell, timing] : cells) tally.cpuCollectives[clock] += timing.collectives;
  }
  tally.cpuCommunicators += cpu;
}

// Whether `a` is a later state of its entry than `b`, by what each is: a final state is later than any live one
// (a communicator finishes once); of two live ones, the one that has counted more (its counts only grow). The
// update stamps decide only between equals: a clock stepped back by NTP, or copies of a pod's directory taken at
// different times, can stamp an earlier state later.
bool laterState(const CommunicatorRecord& a, const CommunicatorRecord& b) {
  if (a.live != b.live) return !a.live;
  if (a.cumulativeCount != b.cumulativeCount) return a.cumulativeCount > b.cumulativeCount;
  return a.updatedMs > b.updatedMs;
}

// Of the records naming one entry, the latest state (laterState). Records that name no entry are all kept. In
// input order otherwise. *stampsOverruled counts the entries whose kept state carries an older stamp than one
// set aside.
std::vector<const CommunicatorRecord*> latestStates(const std::vector<CommunicatorRecord>& records,
                                                    int* stampsOverruled) {
  std::vector<const CommunicatorRecord*> kept;
  std::map<std::string, size_t> byEntry;
  std::map<std::string, int64_t> newestStamp;
  for (const CommunicatorRecord& r : records) {
    if (r.entryId.empty()) {
      kept.push_back(&r);
      continue;
    }
    auto [it, added] = byEntry.emplace(r.entryId, kept.size());
    int64_t& newest = newestStamp.emplace(r.entryId, r.updatedMs).first->second;
    newest = std::max(newest, r.updatedMs);
    if (added) {
      kept.push_back(&r);
    } else if (laterState(r, *kept[it->second])) {
      kept[it->second] = &r;
    }
  }
  *stampsOverruled = 0;
  for (const auto& [entry, index] : byEntry) *stampsOverruled += kept[index]->updatedMs < newestStamp[entry];
  return kept;
}

}  // namespace

StatusOr<Fleet> assembleFleet(const std::vector<CommunicatorRecord>& statistics,
                              const std::vector<CommunicatorRecord>& inspector) {
  Fleet fleet;
  Status one = checkOneExperiment(statistics, &fleet.experiment);
  if (!one.isOk()) return one;
  Tally tally;
  std::map<uint64_t, FleetCommunicator> byId;
  std::map<uint64_t, ClockTimings> ours, theirs;
  std::set<uint64_t> disagreeing;
  int stampsOverruled = 0;
  for (const CommunicatorRecord* latest : latestStates(statistics, &stampsOverruled)) {
    const CommunicatorRecord& r = *latest;
    tally.countZeros(r);
    FleetCommunicator& c = byId[r.commId];
    c.commId = r.commId;
    std::string why;
    if (!mergeIdentity(c, r, &why) || (r.design == "switchback" && !mergeSwitchbackRank(c, r, &why))) {
      if (disagreeing.insert(r.commId).second) fleet.errors.push_back(why);
      continue;
    }
    c.files.insert(r.file);
    ++c.records;
    c.live = c.live || r.live;
    for (const auto& [cell, counts] : r.decisions) {
      for (const auto& [decision, calls] : counts) c.decisions[cell][decision] += calls;
    }
    addRank(ours[r.commId], r);
  }
  std::set<uint64_t> withoutArm;
  for (const CommunicatorRecord& r : inspector) {
    tally.countZeros(r);
    auto it = byId.find(r.commId);
    if (it == byId.end()) {
      if (!r.timings.empty()) withoutArm.insert(r.commId);
      continue;
    }
    it->second.files.insert(r.file);
    if (it->second.nNodes == 0) it->second.nNodes = r.nNodes;
    addRank(theirs[r.commId], r);
  }
  fleet.withoutArm = static_cast<int>(withoutArm.size());
  for (auto& [id, c] : byId) {
    if (disagreeing.count(id) != 0) continue;
    finishSwitchbackRanks(c);
    chooseTimings(c, std::move(ours[id]), std::move(theirs[id]), tally);
    fleet.communicators.push_back(std::move(c));
  }
  tally.addNotes(fleet.notes);
  if (stampsOverruled > 0) {
    fleet.notes.push_back(std::to_string(stampsOverruled) + " communicator entr" +
                          (stampsOverruled == 1 ? "y's" : "ies'") +
                          " latest state carried an older update stamp than a state set aside (a clock stepped "
                          "back, or copies of a pod's directory taken at different times): a final state, or the "
                          "checkpoint that had counted more, was kept");
  }
  return fleet;
}

}  // namespace nccl_roce::fleet
