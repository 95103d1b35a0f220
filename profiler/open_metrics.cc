#include "profiler/open_metrics.h"

#include <cstdio>
#include <map>
#include <tuple>

#include "common/strings.h"
#include "telemetry/cell_key.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::profiler {

namespace {

const char* kAb = "nccl_roce_ab_log_duration";
const char* kDecisions = "nccl_roce_tuner_decisions_total";
const char* kOmitted = "nccl_roce_ab_omitted_cells";
const char* kZero = "nccl_roce_ab_zero_durations_total";
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

void family(std::string& out, const char* name, const char* type, const char* help, const char* unit = nullptr) {
  out += std::string("# TYPE ") + name + " " + type + "\n";
  if (unit != nullptr) out += std::string("# UNIT ") + name + " " + unit + "\n";
  out += std::string("# HELP ") + name + " " + help + "\n";
}

// What identifies a communicator's rank for `ab`: its experiment, arm and policy, id, rank and shape.
std::string communicatorLabels(const CommunicatorTimings& c) {
  return "experiment=" + quoted(c.experiment) + ",experiment_hash=" + quoted(c.experimentHash) +
         ",arm=" + quoted(c.arm) + ",policy=" + quoted(c.policy) + ",policy_hash=" + quoted(c.policyHash) +
         ",comm_id=" + quoted(hex(c.commId)) + ",rank=" + quoted(std::to_string(c.rank)) +
         ",nranks=" + quoted(std::to_string(c.nRanks)) + ",n_nodes=" + quoted(std::to_string(c.nNodes));
}

std::string cellLabels(int collective, int bucket) {
  return ",collective=" + quoted(telemetry::collectiveName(collective)) +
         ",message_size=" + quoted(messageSizeLabel(bucket));
}

// One communicator's (collective, size bucket) cell: its count and bin sum per timing source, and the tuner's
// decisions there.
struct Cell {
  std::map<telemetry::TimingSource, std::pair<uint64_t, uint64_t>> bySource;  // count, bin sum
  std::vector<const DecisionCount*> decisions;
  int series() const { return 2 * static_cast<int>(bySource.size()) + static_cast<int>(decisions.size()); }
};
using Cells = std::map<std::pair<int, int>, Cell>;

// The cells of a communicator that fit its series budget, in order of collective and size; *omitted counts the
// rest. Decisions go with the cells the profiler timed (the only ones `ab fit` reads). Durations in bin 0 (at or
// below 0.1 us: the clock could not resolve them) are left out of the counts and sums and counted in *zeros, as
// `ab` drops and counts them when it reads the statistics file.
Cells budgetedCells(const CommunicatorTimings& c, int* omitted, uint64_t* zeros) {
  Cells cells;
  *zeros = 0;
  for (const TimingTable::Entry& e : c.entries) {
    if (e.key.collective < 0) continue;
    uint64_t zero = e.histogram.binCount(0);
    *zeros += zero;
    if (e.histogram.count() == zero) continue;
    auto& [count, binSum] = cells[{e.key.collective, e.key.bucket}].bySource[e.key.source];
    count += e.histogram.count() - zero;
    binSum += e.histogram.binSum();  // bin 0 adds nothing to it
  }
  for (const DecisionCount& d : c.decisions) {
    auto cell = cells.find({d.collective, d.bucket});
    if (cell != cells.end()) cell->second.decisions.push_back(&d);
  }
  int used = 0;
  *omitted = 0;
  for (auto it = cells.begin(); it != cells.end();) {
    if (*omitted == 0 && used + it->second.series() <= kAbSeriesPerCommunicator) {
      used += it->second.series();
      ++it;
    } else {
      ++*omitted;
      it = cells.erase(it);
    }
  }
  return cells;
}

void abSeries(std::string& out, const std::vector<CommunicatorTimings>& communicators, const std::vector<Cells>& cells) {
  family(out, kAb, "summary",
         "Collectives timed per communicator, rank, collective, size bucket and timing source (_count), and the sum "
         "of their log-histogram bins (_sum: each duration's log in steps of ln(1.01/0.99) above 100 ns, as the "
         "statistics file's bins): a geometric mean is 2e-7 s x gamma^(_sum/_count) / (gamma + 1), gamma = 1.01/0.99");
  for (size_t i = 0; i < communicators.size(); ++i) {
    std::string comm = communicatorLabels(communicators[i]);
    for (const auto& [where, cell] : cells[i]) {
      for (const auto& [source, sums] : cell.bySource) {
        std::string labels = comm + cellLabels(where.first, where.second) +
                             ",timing_source=" + quoted(telemetry::timingSourceName(source));
        out += std::string(kAb) + "_count{" + labels + "} " + std::to_string(sums.first) + "\n";
        out += std::string(kAb) + "_sum{" + labels + "} " + std::to_string(sums.second) + "\n";
      }
    }
  }
  family(out, kDecisions, "counter",
         "Tuner calls per communicator, rank, collective, size bucket and decision: what ran and who chose it");
  for (size_t i = 0; i < communicators.size(); ++i) {
    std::string comm = communicatorLabels(communicators[i]);
    for (const auto& [where, cell] : cells[i]) {
      for (const DecisionCount* d : cell.decisions) {
        out += std::string(kDecisions) + "{" + comm + cellLabels(where.first, where.second) +
               ",algorithm=" + quoted(d->algorithm) + ",protocol=" + quoted(d->protocol) +
               ",channels=" + quoted(std::to_string(d->channels)) +
               ",chunk_size=" + quoted(telemetry::chunkSizeLabel(d->chunkSize)) + ",source=" + quoted(d->source) +
               ",rule=" + quoted(d->rule) + "} " + std::to_string(d->count) + "\n";
      }
    }
  }
}

void omittedSeries(std::string& out, const std::vector<CommunicatorTimings>& communicators,
                   const std::vector<int>& omitted, const std::vector<uint64_t>& zeros) {
  family(out, kOmitted, "gauge",
         "Timed cells (collective x size bucket) of a communicator's rank left out of this file by its series budget: "
         "only the statistics file has them");
  for (size_t i = 0; i < communicators.size(); ++i) {
    if (omitted[i] == 0) continue;
    out += std::string(kOmitted) + "{" + communicatorLabels(communicators[i]) + "} " + std::to_string(omitted[i]) + "\n";
  }
  family(out, kZero, "counter",
         "Collectives of a communicator's rank timed at or below 0.1 us (the clock could not resolve them): left out "
         "of nccl_roce_ab_log_duration, as ab drops them from statistics files");
  for (size_t i = 0; i < communicators.size(); ++i) {
    if (zeros[i] == 0) continue;
    out += std::string(kZero) + "{" + communicatorLabels(communicators[i]) + "} " + std::to_string(zeros[i]) + "\n";
  }
}

// The histograms of the process's communicators, merged per arm, cell and choice.
void armHistograms(std::string& out, const ProcessLabels& process, const std::vector<CommunicatorTimings>& communicators) {
  std::map<std::string, telemetry::LogHistogram> byLabels;
  for (const CommunicatorTimings& c : communicators) {
    for (size_t i = 0; i < c.entries.size(); ++i) {
      const telemetry::CellKey& k = c.entries[i].key;
      std::string labels =
          "node=" + quoted(process.node) + ",pid=" + quoted(std::to_string(process.pid)) +
          ",experiment=" + quoted(c.experiment) + ",arm=" + quoted(c.arm) + ",policy=" + quoted(c.policy) +
          ",policy_hash=" + quoted(c.policyHash) + ",n_nodes=" + quoted(std::to_string(c.nNodes)) +
          cellLabels(k.collective, k.bucket) + ",algo_proto=" +
          quoted(std::string(telemetry::algorithmName(k.algorithm)) + "_" + telemetry::protocolName(k.protocol)) +
          ",chunk_size=" + quoted(telemetry::chunkSizeLabel(k.chunkSize)) +
          ",rule=" + quoted(i < c.rules.size() ? c.rules[i] : std::string()) +
          ",timing_source=" + quoted(telemetry::timingSourceName(k.source));
      byLabels[labels].merge(c.entries[i].histogram);
    }
  }
  family(out, kDuration, "histogram",
         "NCCL collective duration on the GPU (earliest channel start to latest stop), per process, arm, size "
         "bucket and choice",
         "seconds");
  for (const auto& [labels, h] : byLabels) {
    std::vector<std::pair<int, uint64_t>> bins = h.nonEmptyBins();
    size_t next = 0;
    uint64_t cumulative = 0;
    for (double bound : exportedBucketBoundsSeconds()) {
      while (next < bins.size() && telemetry::LogHistogram::representativeNs(bins[next].first) <= bound * 1e9) {
        cumulative += bins[next++].second;
      }
      out += std::string(kDuration) + "_bucket{" + labels + ",le=" + quoted(number(bound)) + "} " +
             std::to_string(cumulative) + "\n";
    }
    out += std::string(kDuration) + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(h.count()) + "\n";
    out += std::string(kDuration) + "_count{" + labels + "} " + std::to_string(h.count()) + "\n";
    out += std::string(kDuration) + "_sum{" + labels + "} " + number(static_cast<double>(h.sumNs()) / 1e9) + "\n";
  }
}

void droppedSeries(std::string& out, const ProcessLabels& process, const std::vector<CommunicatorTimings>& communicators) {
  family(out, kDropped, "counter", "profiler events that could not be used, by reason");
  for (const CommunicatorTimings& c : communicators) {
    for (const auto& [why, count] : c.dropped) {
      out += std::string(kDropped) + "{node=" + quoted(process.node) + ",comm_id=" + quoted(hex(c.commId)) +
             ",rank=" + quoted(std::to_string(c.rank)) + ",reason=" + quoted(dropName(why)) + "} " +
             std::to_string(count) + "\n";
    }
  }
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

std::string messageSizeLabel(int bucket) {
  uint64_t lo = bucket <= 0 ? 0 : uint64_t{1} << bucket;
  return formatByteSize(lo) + "-" + (bucket >= 63 ? std::string("16E") : formatByteSize(uint64_t{1} << (bucket + 1)));
}

std::string renderOpenMetrics(const ProcessLabels& process, const std::vector<CommunicatorTimings>& communicators) {
  std::vector<Cells> cells;
  std::vector<int> omitted(communicators.size(), 0);
  std::vector<uint64_t> zeros(communicators.size(), 0);
  for (size_t i = 0; i < communicators.size(); ++i) {
    cells.push_back(budgetedCells(communicators[i], &omitted[i], &zeros[i]));
  }
  std::string out;
  abSeries(out, communicators, cells);
  omittedSeries(out, communicators, omitted, zeros);
  armHistograms(out, process, communicators);
  droppedSeries(out, process, communicators);
  return out + "# EOF\n";
}

}  // namespace nccl_roce::profiler
