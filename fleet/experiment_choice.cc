#include "fleet/experiment_choice.h"

#include <map>
#include <set>
#include <utility>

namespace nccl_roce::fleet {

namespace {

bool isOf(const CommunicatorRecord& r, const std::string& wanted) {
  return !r.experiment.empty() && (r.experiment == wanted || r.experimentHash == wanted);
}

}  // namespace

std::string experimentsNamed(const std::vector<CommunicatorRecord>& records) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const CommunicatorRecord& r : records) {
    if (!r.experiment.empty()) seen.emplace(r.experiment, r.experimentHash);
  }
  std::string out;
  for (const auto& [name, hash] : seen) {
    out += (out.empty() ? "'" : ", '") + name + "'" + (hash.empty() ? "" : " (" + hash + ")");
  }
  return out.empty() ? "none" : out;
}

StatusOr<ExperimentRecords> recordsOfExperiment(std::vector<CommunicatorRecord> statistics,
                                                std::vector<CommunicatorRecord> inspector, const std::string& wanted) {
  ExperimentRecords out;
  std::set<uint64_t> kept, others;
  std::map<std::string, int> leftOut;  // per experiment name ("" for none)
  for (CommunicatorRecord& r : statistics) {
    if (isOf(r, wanted)) {
      kept.insert(r.commId);
      out.statistics.push_back(std::move(r));
    } else {
      others.insert(r.commId);
      ++leftOut[r.experiment];
    }
  }
  if (out.statistics.empty()) {
    return Status(StatusCode::kNotFound, "no statistics of experiment '" + wanted +
                                             "' in the inputs; the experiments there: " + experimentsNamed(statistics) +
                                             ": name one of them with --experiment");
  }
  int inspectorLeftOut = 0;
  for (CommunicatorRecord& r : inspector) {
    if (kept.count(r.commId) == 0 && others.count(r.commId) != 0) {
      ++inspectorLeftOut;
      continue;
    }
    out.inspector.push_back(std::move(r));
  }
  std::string counts;
  for (const auto& [name, n] : leftOut) {
    counts += (counts.empty() ? "" : ", ") + (name.empty() ? std::string("no experiment") : "'" + name + "'") + " " +
              std::to_string(n);
  }
  if (!counts.empty()) {
    out.note = "--experiment " + wanted + ": communicator entries of other experiments left out (" + counts + ")";
    if (inspectorLeftOut > 0) {
      out.note += ", with " + std::to_string(inspectorLeftOut) + " Inspector record(s) of their communicators";
    }
  }
  return out;
}

}  // namespace nccl_roce::fleet
