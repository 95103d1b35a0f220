#include "plugin/timing_records.h"

#include <map>
#include <vector>

#include "common/log.h"
#include "common/strings.h"
#include "plugin/process_context.h"
#include "plugin/profiler_plugin.h"
#include "telemetry/cell_key.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::plugin {

namespace {

using profiler::CommunicatorTimings;
using telemetry::LogHistogram;

std::string hex(uint64_t value) { return format("0x%016llx", static_cast<unsigned long long>(value)); }

double microseconds(double ns) { return ns / 1000.0; }

nlohmann::ordered_json histogramScheme() {
  nlohmann::ordered_json scheme;
  scheme["scheme"] = "log";
  scheme["relative_error"] = LogHistogram::kRelativeError;
  scheme["min_ns"] = LogHistogram::kMinNs;
  scheme["bins"] = LogHistogram::kBins;
  return scheme;
}

nlohmann::ordered_json droppedCounts(const CommunicatorTimings& t) {
  nlohmann::ordered_json dropped;
  for (int i = 0; i < profiler::kNumDrops; ++i) dropped[profiler::dropName(static_cast<profiler::Drop>(i))] = 0;
  for (const auto& [why, count] : t.dropped) dropped[profiler::dropName(why)] = count;
  return dropped;
}

nlohmann::ordered_json keyStatistics(const profiler::TimingTable::Entry& e, const std::string& rule) {
  const LogHistogram& h = e.histogram;
  nlohmann::ordered_json k;
  telemetry::writeCellKey(e.key, k);
  k["rule"] = rule.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(rule);
  k["timing_source"] = telemetry::timingSourceName(e.key.source);
  k["count"] = h.count();
  k["sum_us"] = microseconds(static_cast<double>(h.sumNs()));
  k["min_us"] = microseconds(static_cast<double>(h.minNs()));
  k["max_us"] = microseconds(static_cast<double>(h.maxNs()));
  k["p50_us"] = microseconds(h.quantileNs(0.50).value_or(0));
  k["p90_us"] = microseconds(h.quantileNs(0.90).value_or(0));
  k["p99_us"] = microseconds(h.quantileNs(0.99).value_or(0));
  nlohmann::ordered_json bins = nlohmann::ordered_json::array();
  for (const auto& [bin, count] : h.nonEmptyBins()) bins.push_back({bin, count});
  k["bins"] = std::move(bins);
  return k;
}

// One of the tuner's "decisions" (tuner/decision_counts.h toJson, which this library wrote) as labels.
profiler::DecisionCount decisionCount(const nlohmann::ordered_json& d) {
  std::map<std::string, std::string> text;
  std::map<std::string, uint64_t> number;
  for (const auto& item : d.items()) {
    if (item.value().is_string()) text[item.key()] = item.value().get<std::string>();
    if (item.value().is_number_unsigned()) number[item.key()] = item.value().get<uint64_t>();
  }
  profiler::DecisionCount out;
  out.collective = telemetry::parseCollective(text["collective"]).value_or(-1);
  out.bucket = telemetry::sizeBucket(number["size_min"]);
  out.algorithm = text["algorithm"];
  out.protocol = text["protocol"];
  out.channels = static_cast<int>(number["channels"]);
  telemetry::CellKey key;  // chunk_size as the key's code: bytes, or a factor written "x2"
  if (telemetry::readCellKey(d, &key).isOk()) out.chunkSize = key.chunkSize;
  out.source = text["source"];
  out.rule = text["rule"];
  out.count = number["count"];
  return out;
}

// The chunk size `rule` sets for what the timed key ran: the one its decisions of that collective, size bucket,
// algorithm and protocol carry (a rule sets one per protocol). 0, NCCL's own, where no rule decided.
uint32_t chunkSizeOf(const telemetry::CellKey& key, const std::string& rule,
                     const std::vector<profiler::DecisionCount>& decisions) {
  if (rule.empty()) return 0;
  for (const profiler::DecisionCount& d : decisions) {
    if (d.source == "rule" && d.rule == rule && d.collective == key.collective && d.bucket == key.bucket &&
        d.algorithm == telemetry::algorithmName(key.algorithm) && d.protocol == telemetry::protocolName(key.protocol)) {
      return d.chunkSize;
    }
  }
  return 0;
}

}  // namespace

TimedCommunicator::TimedCommunicator(CommunicatorTimings labels, std::shared_ptr<profiler::CollectiveTracker> tracker,
                                     TelemetryFiles& statistics, std::string statsPath, TelemetryEntry statsEntry)
    : labels_(std::move(labels)),
      tracker_(std::move(tracker)),
      statistics_(statistics),
      statsPath_(std::move(statsPath)),
      statsEntry_(statsEntry) {}

CommunicatorTimings TimedCommunicator::snapshot() const {
  CommunicatorTimings t = labels_;
  t.entries = tracker_->entries();
  for (int i = 0; i < profiler::kNumDrops; ++i) {
    auto why = static_cast<profiler::Drop>(i);
    if (uint64_t count = tracker_->dropped(why)) t.dropped.emplace_back(why, count);
  }
  if (DecisionsLookup decisions = statistics_.decisionsOf(statsPath_, statsEntry_)) {
    for (const nlohmann::ordered_json& d : decisions()) t.decisions.push_back(decisionCount(d));
  }
  // The profiler cannot see chunk sizes: each key takes the one its deciding rule set, from the tuner's counts.
  RuleLookup rules = statistics_.rulesOf(statsPath_, statsEntry_);
  for (profiler::TimingTable::Entry& e : t.entries) {
    nlohmann::ordered_json rule =
        rules ? rules(e.key.collective, e.key.bucket, e.key.algorithm, e.key.protocol) : nlohmann::ordered_json();
    t.rules.push_back(rule.is_string() ? rule.get<std::string>() : std::string());
    e.key.chunkSize = chunkSizeOf(e.key, t.rules.back(), t.decisions);
  }
  return t;
}

CommunicatorTimings describeCommunicator(ProcessContext& process, const ProfilerCommunicator& comm) {
  CommunicatorTimings labels;
  labels.commId = comm.commHash;
  labels.nNodes = comm.nNodes;
  labels.nRanks = comm.nRanks;
  labels.rank = comm.rank;
  PolicyRegistry::Active active = process.policies().active(process.environment());
  tuner::PolicyAssignment assignment = active.policy->assign(comm.commId);
  labels.arm = assignment.arm;
  const auto& experiment = active.policy->experiment();
  if (experiment && !assignment.arm.empty()) {
    labels.experiment = experiment->name;
    labels.experimentHash = active.policy->digest();  // as the tuner writes experiment_hash
  }
  labels.policy = assignment.policy ? assignment.policy->name : "nccl";
  labels.policyHash = assignment.policy ? assignment.policy->digest : "";
  return labels;
}

nlohmann::ordered_json timingRecords(const TimedCommunicator& timed) {
  CommunicatorTimings t = timed.snapshot();
  nlohmann::ordered_json fields;
  fields["comm_id"] = hex(timed.statsEntry().commId);
  if (t.nRanks > 0) {  // the tuner writes the same; v1-v3 profilers are not told
    fields["n_ranks"] = t.nRanks;
    fields["n_nodes"] = t.nNodes;
  }
  if (t.rank >= 0) fields["rank"] = t.rank;
  nlohmann::ordered_json timing;
  timing["histogram"] = histogramScheme();
  timing["dropped"] = droppedCounts(t);
  timing["collectives"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < t.entries.size(); ++i) {
    timing["collectives"].push_back(keyStatistics(t.entries[i], i < t.rules.size() ? t.rules[i] : std::string()));
  }
  fields["timing"] = std::move(timing);
  return fields;
}

}  // namespace nccl_roce::plugin
