#include "tests/unit/fleet/fleet_fixtures.h"

#include <nlohmann/json.hpp>

#include "telemetry/log_histogram.h"

namespace nccl_roce::fleet::testing {

namespace {

nlohmann::ordered_json orNull(const std::string& text) {
  return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

nlohmann::ordered_json decisionsOf(const CommEntry& c) {
  nlohmann::ordered_json decisions = nlohmann::ordered_json::array();
  for (const DecisionLine& d : c.decisions) {
    nlohmann::ordered_json line;
    line["collective"] = d.collective;
    line["bucket"] = "ignored-by-readers";
    line["size_min"] = d.sizeMin;
    line["size_max"] = d.sizeMin * 2 - 1;
    line["algorithm"] = orNull(d.algorithm);
    line["protocol"] = orNull(d.protocol);
    line["channels"] = d.channels;
    line["source"] = d.source;
    line["rule"] = orNull(d.rule);
    line["count"] = d.count;
    decisions.push_back(line);
  }
  return decisions;
}

// The file in the plugin's layout; `v3`: with what schema /3 adds to each entry.
std::string document(const std::vector<CommEntry>& comms, bool v3, const std::string& host, int pid) {
  nlohmann::ordered_json doc;
  doc["schema"] = v3 ? "nccl-roce.stats/3" : "nccl-roce.stats/2";
  doc["pid"] = pid;
  doc["host"] = host;
  doc["communicators"] = nlohmann::ordered_json::array();
  for (const CommEntry& c : comms) {
    nlohmann::ordered_json comm;
    if (v3) {
      comm["entry"] = c.entry;
      comm["state"] = c.state;
      comm["updated"] = c.updated;
    }
    comm["comm_id"] = c.commId;
    comm["n_ranks"] = 16;
    comm["n_nodes"] = c.nodes;
    comm["rank"] = c.rank;
    comm["experiment"] = c.experiment.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.experiment);
    comm["experiment_hash"] =
        c.experiment.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.experimentHash);
    comm["policy"] = c.arm;
    comm["policy_source"] = "/etc/nccl-roce/" + c.arm + ".toml";
    comm["policy_hash"] = c.policyHash;
    comm["arm"] = c.arm;
    uint64_t calls = 0, fromRules = 0, unavailable = 0;  // what the decisions add up to, as the plugin writes them
    for (const DecisionLine& d : c.decisions) {
      calls += d.count;
      fromRules += d.source == "rule" ? d.count : 0;
      unavailable += d.source == "unavailable" ? d.count : 0;
    }
    comm["calls"] = calls;
    comm["from_rules"] = fromRules;
    comm["unavailable"] = unavailable;
    comm["decisions"] = decisionsOf(c);
    nlohmann::ordered_json timing;
    timing["histogram"] = {{"scheme", "log"}, {"relative_error", 0.01}, {"min_ns", 100}, {"bins", 1024}};
    timing["dropped"] = {{"unknown_event", 0}, {"missing_parent", 0}};
    timing["collectives"] = nlohmann::ordered_json::array();
    for (const TimedKey& k : c.keys) {
      telemetry::LogHistogram h;
      for (uint64_t i = 0; i < k.count; ++i) h.record(static_cast<uint64_t>(k.microseconds * 1000));
      nlohmann::ordered_json key;
      key["collective"] = k.collective;
      key["bucket"] = "ignored-by-readers";
      key["size_min"] = k.sizeMin;
      key["size_max"] = k.sizeMin * 2 - 1;
      key["algorithm"] = "Ring";
      key["protocol"] = "LL";
      key["channels"] = 2;
      key["rule"] = nullptr;
      key["timing_source"] = k.timingSource;
      key["count"] = k.count;
      key["sum_us"] = k.microseconds * static_cast<double>(k.count);
      key["bins"] = nlohmann::ordered_json::array();
      for (const auto& [bin, n] : h.nonEmptyBins()) key["bins"].push_back({bin, n});
      timing["collectives"].push_back(key);
    }
    comm["timing"] = timing;
    doc["communicators"].push_back(comm);
  }
  return doc.dump(1);
}

}  // namespace

std::string statisticsFile(const std::vector<CommEntry>& comms) {
  return document(comms, false, "node-a", 4242);
}

std::string checkpointFile(const std::vector<CommEntry>& comms, const std::string& host, int pid) {
  return document(comms, true, host, pid);
}

std::string inspectorRecord(const std::string& commId, int rank, const std::string& coll, uint64_t bytes,
                            uint64_t execUs, bool oneLine, const std::string& version,
                            const std::string& timingSource) {
  nlohmann::ordered_json r;
  r["header"] = {{"id", commId}, {"rank", rank}, {"n_ranks", 16}, {"nnodes", 2}};
  r["metadata"] = {{"inspector_output_format_version", version},
                   {"git_rev", ""},
                   {"rec_mechanism", "nccl_profiler_interface"},
                   {"dump_timestamp_us", 1748030377748202ull},
                   {"hostname", "node-a"},
                   {"pid", 1639453}};
  r["coll_perf"] = {{"coll", coll},
                    {"coll_sn", 1407},
                    {"coll_msg_size_bytes", bytes},
                    {"coll_exec_time_us", execUs},
                    {"coll_timing_source", timingSource},
                    {"coll_algobw_gbs", 277.2},
                    {"coll_busbw_gbs", 485.1}};
  return r.dump(oneLine ? -1 : 2) + "\n";
}

}  // namespace nccl_roce::fleet::testing
