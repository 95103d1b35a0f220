#include "profiler/open_metrics.h"

#include <cstdio>

#include "common/strings.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::profiler {

namespace {

const char* kDuration = "nccl_roce_collective_duration_seconds";
const char* kDropped = "nccl_roce_profiler_dropped_events_total";

// Label values are quoted; backslash, double quote and newline are escaped (the format's rule).
std::string quoted(const std::string& value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string messageSize(uint8_t bucket) {
  uint64_t lo = bucket == 0 ? 0 : uint64_t{1} << bucket;
  return formatByteSize(lo) + "-" + (bucket >= 63 ? std::string("16E") : formatByteSize(uint64_t{1} << (bucket + 1)));
}

std::string labels(const std::string& node, const CommunicatorTimings& c, const CellKey& k, const std::string& rule) {
  std::string out = "node=" + quoted(node) + ",comm_id=" + quoted(hex(c.commId)) +
                    ",n_nodes=" + quoted(std::to_string(c.nNodes)) + ",nranks=" + quoted(std::to_string(c.nRanks)) +
                    ",collective=" + quoted(tuner::collectiveName(k.collective)) + ",message_size=" +
                    quoted(messageSize(k.bucket)) + ",algo_proto=" +
                    quoted(std::string(tuner::algorithmName(k.algorithm)) + "_" + tuner::protocolName(k.protocol)) +
                    ",channels=" + quoted(std::to_string(k.channels)) + ",timing_source=" +
                    quoted(tuner::timingSourceName(k.source));
  out += ",arm=" + quoted(c.arm) + ",policy=" + quoted(c.policy) + ",policy_hash=" + quoted(c.policyHash) + ",rule=" + quoted(rule);
  return out;
}

void histogram(std::string& out, const std::string& labelText, const profiler::LogHistogram& h) {
  std::vector<std::pair<int, uint64_t>> bins = h.nonEmptyBins();
  size_t next = 0;
  uint64_t cumulative = 0;
  for (double bound : exportedBucketBoundsSeconds()) {
    while (next < bins.size() && profiler::LogHistogram::representativeNs(bins[next].first) <= bound * 1e9) {
      cumulative += bins[next++].second;
    }
    out += std::string(kDuration) + "_bucket{" + labelText + ",le=" + quoted(number(bound)) + "} " +
           std::to_string(cumulative) + "\n";
  }
  out += std::string(kDuration) + "_bucket{" + labelText + ",le=\"+Inf\"} " + std::to_string(h.count()) + "\n";
  out += std::string(kDuration) + "_count{" + labelText + "} " + std::to_string(h.count()) + "\n";
  out += std::string(kDuration) + "_sum{" + labelText + "} " + number(static_cast<double>(h.sumNs()) / 1e9) + "\n";
}

}  // namespace

const std::vector<double>& exportedBucketBoundsSeconds() {
  static const std::vector<double> bounds = [] {
    std::vector<double> b;
    for (double decade = 1e-6; decade < 10.5; decade *= 10) {
      for (double m : {1.0, 2.0, 5.0}) {
        if (decade * m <= 10.0 + 1e-9) b.push_back(decade * m);
      }
    }
    return b;
  }();
  return bounds;
}

std::string renderOpenMetrics(const std::string& node, const std::vector<CommunicatorTimings>& communicators) {
  std::string out = std::string("# TYPE ") + kDuration + " histogram\n# UNIT " + kDuration + " seconds\n# HELP " +
                    kDuration + " NCCL collective duration on the GPU (earliest channel start to latest stop), " +
                    "per communicator, size bucket and choice\n";
  for (const CommunicatorTimings& c : communicators) {
    for (size_t i = 0; i < c.entries.size(); ++i) {
      const std::string& rule = i < c.rules.size() ? c.rules[i] : std::string();
      histogram(out, labels(node, c, c.entries[i].key, rule), c.entries[i].histogram);
    }
  }
  out += std::string("# TYPE ") + kDropped + " counter\n# HELP " + kDropped +
         " profiler events that could not be used, by reason\n";
  for (const CommunicatorTimings& c : communicators) {
    for (const auto& [why, count] : c.dropped) {
      out += std::string(kDropped) + "{node=" + quoted(node) + ",comm_id=" + quoted(hex(c.commId)) +
             ",reason=" + quoted(dropName(why)) + "} " + std::to_string(count) + "\n";
    }
  }
  return out + "# EOF\n";
}

}  // namespace nccl_roce::profiler
