#include "fleet/fleet.h"

#include <map>

#include "common/log.h"
#include "common/strings.h"

namespace nccl_roce::fleet {

namespace {

std::string hex(uint64_t id) { return format("0x%016llx", static_cast<unsigned long long>(id)); }

// Files naming different experiments (by name or content hash) cannot be compared: the arms mean different things.
Status checkOneExperiment(const std::vector<CommunicatorRecord>& records, std::string* experiment) {
  const CommunicatorRecord* first = nullptr;
  for (const CommunicatorRecord& r : records) {
    if (r.experiment.empty()) continue;
    if (first == nullptr) {
      first = &r;
      continue;
    }
    if (r.experiment != first->experiment || r.experimentHash != first->experimentHash) {
      return Status(StatusCode::kInvalidArgument,
                    "statistics from different experiments: " + first->file + " has '" + first->experiment + "' (" +
                        first->experimentHash + "), " + r.file + " has '" + r.experiment + "' (" + r.experimentHash +
                        "); compare one experiment at a time");
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
    *why = "communicator " + hex(r.commId) + ": ranks disagree (arm '" + c.arm + "', policy " + c.policyHash +
           " in " + *c.files.begin() + "; arm '" + r.arm + "', policy " + r.policyHash + " in " + r.file +
           "): ranks that decide differently can hang (NVIDIA/nccl#1136); left out";
    return false;
  }
  if (c.nNodes != 0 && r.nNodes != 0 && c.nNodes != r.nNodes) {
    *why = "communicator " + hex(r.commId) + ": ranks disagree on the node count (" + std::to_string(c.nNodes) +
           " in " + *c.files.begin() + ", " + std::to_string(r.nNodes) + " in " + r.file + "): left out";
    return false;
  }
  if (c.nNodes == 0) c.nNodes = r.nNodes;
  return true;
}

// Of the records naming one entry, the latest: by its update time, and the final state over a checkpoint of the
// same moment. Records that name no entry are all kept. In input order otherwise.
std::vector<const CommunicatorRecord*> latestStates(const std::vector<CommunicatorRecord>& records) {
  std::vector<const CommunicatorRecord*> kept;
  std::map<std::string, size_t> byEntry;
  for (const CommunicatorRecord& r : records) {
    if (r.entryId.empty()) {
      kept.push_back(&r);
      continue;
    }
    auto [it, added] = byEntry.emplace(r.entryId, kept.size());
    if (added) {
      kept.push_back(&r);
      continue;
    }
    const CommunicatorRecord*& earlier = kept[it->second];
    if (r.updatedMs > earlier->updatedMs || (r.updatedMs == earlier->updatedMs && earlier->live && !r.live)) {
      earlier = &r;
    }
  }
  return kept;
}

}  // namespace

StatusOr<Fleet> assembleFleet(const std::vector<CommunicatorRecord>& statistics,
                              const std::vector<CommunicatorRecord>& inspector) {
  Fleet fleet;
  Status one = checkOneExperiment(statistics, &fleet.experiment);
  if (!one.isOk()) return one;
  std::map<uint64_t, FleetCommunicator> byId;
  std::set<uint64_t> disagreeing;
  for (const CommunicatorRecord* latest : latestStates(statistics)) {
    const CommunicatorRecord& r = *latest;
    FleetCommunicator& c = byId[r.commId];
    c.commId = r.commId;
    std::string why;
    if (!mergeIdentity(c, r, &why)) {
      if (disagreeing.insert(r.commId).second) fleet.errors.push_back(why);
      continue;
    }
    c.files.insert(r.file);
    ++c.records;
    c.live = c.live || r.live;
    for (const auto& [cell, counts] : r.decisions) {
      for (const auto& [decision, calls] : counts) c.decisions[cell][decision] += calls;
    }
    if (!inspector.empty()) continue;
    for (const auto& [cell, timings] : r.timings) c.timings[cell].add(timings);
  }
  std::set<uint64_t> withoutArm;
  for (const CommunicatorRecord& r : inspector) {
    auto it = byId.find(r.commId);
    if (it == byId.end()) {
      withoutArm.insert(r.commId);
      continue;
    }
    it->second.files.insert(r.file);
    if (it->second.nNodes == 0) it->second.nNodes = r.nNodes;
    for (const auto& [cell, timings] : r.timings) it->second.timings[cell].add(timings);
  }
  fleet.withoutArm = static_cast<int>(withoutArm.size());
  for (auto& [id, c] : byId) {
    if (disagreeing.count(id) == 0) fleet.communicators.push_back(std::move(c));
  }
  return fleet;
}

}  // namespace nccl_roce::fleet
