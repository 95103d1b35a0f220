#include "telemetry/open_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "common/strings.h"
#include "telemetry/chunk_size.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::telemetry {

namespace {

// ---- Writing ----

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

// A double that reads back to the same value.
std::string exact(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

void family(std::string& out, const char* name, const char* type, const char* help, const char* unit = nullptr) {
  out += std::string("# TYPE ") + name + " " + type + "\n";
  if (unit != nullptr) out += std::string("# UNIT ") + name + " " + unit + "\n";
  out += std::string("# HELP ") + name + " " + help + "\n";
}

PolicyIdentity identityOf(const CommunicatorSnapshot& c) {
  if (c.identity) return *c.identity;
  PolicyIdentity none;  // no tuner beside the profiler: nothing decided for it
  none.policy.clear();
  return none;
}

// What identifies a communicator's rank for `ab` (abCommunicatorLabels, in that order).
std::string processLabels(const ProcessLabels& p) {
  return "namespace=" + quoted(p.podNamespace) + ",pod=" + quoted(p.pod) + ",node=" + quoted(p.node) +
         ",pid=" + quoted(std::to_string(p.pid));
}

// A switchback's arms and windows; null for every other communicator.
const SwitchbackTimings* switchbackOf(const CommunicatorSnapshot& c) {
  return c.timings && c.timings->switchback ? &*c.timings->switchback : nullptr;
}

// `arm` names the switchback arm a series is of (every arm runs in a switchback's communicator); null: the
// communicator's own arm.
std::string communicatorLabels(const ProcessLabels& process, const CommunicatorSnapshot& c,
                               const std::string* arm = nullptr) {
  PolicyIdentity id = identityOf(c);
  return processLabels(process) + ",experiment=" + quoted(id.experiment) +
         ",experiment_hash=" + quoted(id.experimentHash) + ",arm=" + quoted(arm != nullptr ? *arm : id.arm) +
         ",policy=" + quoted(id.policy) + ",policy_hash=" + quoted(id.policyHash) +
         ",comm_id=" + quoted(formatHexId(c.commId)) + ",rank=" + quoted(std::to_string(c.rank.value_or(-1))) +
         ",nranks=" + quoted(std::to_string(c.nRanks)) + ",n_nodes=" + quoted(std::to_string(c.nNodes));
}

std::string cellLabels(int collective, int bucket) {
  return ",collective=" + quoted(collectiveName(collective)) + ",message_size=" + quoted(bucketLabel(bucket));
}

// One communicator's (collective, size bucket) cell: its count and bin sum per arm and timing source, and the
// tuner's decisions there. The arm is "" (the communicator's own) but in a switchback, where each arm's collectives
// are counted apart (the eager ones after the washout, and the replays of those it captured) and each arm but the
// reference adds its paired windows (four series: see switchbackSeries).
struct Cell {
  std::map<std::pair<std::string, TimingSource>, std::pair<uint64_t, uint64_t>> bySource;  // count, bin sum
  std::vector<const DecisionCount*> decisions;
  std::vector<const SwitchbackCell*> paired;  // a switchback's, per arm
  int series() const {
    return 2 * static_cast<int>(bySource.size()) + static_cast<int>(decisions.size()) +
           4 * static_cast<int>(paired.size());
  }
};
using Cells = std::map<std::pair<int, int>, Cell>;

// A switchback's cells per arm: its eager collectives (after the washout) with their paired windows, on the clock
// of the cell's keys (the GPU's where no key says). The replays of captured collectives are judged by rounds of turns,
// which only the statistics file holds (their number grows with the process's life); the histograms show them per arm.
void switchbackCells(const SwitchbackTimings& t, const std::map<std::pair<int, int>, TimingSource>& sourceOf,
                     Cells& cells) {
  auto add = [&](int collective, int bucket, int arm, uint64_t count, uint64_t binSum) -> Cell* {
    if (count == 0 || arm < 0 || static_cast<size_t>(arm) >= t.arms.size()) return nullptr;
    auto source = sourceOf.find({collective, bucket});
    Cell& cell = cells[{collective, bucket}];
    auto& sums = cell.bySource[{t.arms[static_cast<size_t>(arm)],
                                source != sourceOf.end() ? source->second : TimingSource::kKernelGpu}];
    sums.first += count;
    sums.second += binSum;
    return &cell;
  };
  for (const SwitchbackCell& s : t.cells) {
    Cell* cell = add(s.collective, s.bucket, s.arm, s.count, s.binSum);
    if (cell != nullptr) cell->paired.push_back(&s);
  }
}

// Every timed cell with its counts and bin sums. Durations in bin 0 (at or below 0.1 us: the clock could not
// resolve them) are left out of the counts and sums and counted in *zeros, as `ab` drops and counts them when it
// reads the statistics file. Decisions go with the cells the profiler timed (the only ones `ab fit` reads).
Cells timedCells(const CommunicatorSnapshot& c, uint64_t* zeros) {
  Cells cells;
  *zeros = 0;
  if (!c.timings) return cells;
  const SwitchbackTimings* switchback = switchbackOf(c);
  std::map<std::pair<int, int>, TimingSource> sourceOf;  // a switchback's cells: the clock of their keys
  for (const KeyTimings& k : c.timings->keys) {
    if (k.key.collective < 0) continue;
    uint64_t zero = k.histogram.binCount(0);
    *zeros += zero;
    if (k.histogram.count() == zero) continue;
    sourceOf.try_emplace({k.key.collective, k.key.bucket}, k.key.source);
    if (switchback != nullptr) continue;
    auto& [count, binSum] = cells[{k.key.collective, k.key.bucket}].bySource[{"", k.key.source}];
    count += k.histogram.count() - zero;
    binSum += k.histogram.binSum();  // bin 0 adds nothing to it
  }
  if (switchback != nullptr) switchbackCells(*switchback, sourceOf, cells);
  if (!c.decisions) return cells;
  for (const DecisionCount& d : *c.decisions) {
    auto cell = cells.find({d.key.collective, d.key.bucket});
    if (cell != cells.end()) cell->second.decisions.push_back(&d);
  }
  return cells;
}

// The cells that fit a communicator's series budget, in order of collective and size; *omitted counts the rest.
Cells budgeted(Cells cells, int* omitted) {
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

// What one communicator rank puts on its `ab` series.
struct AbCells {
  Cells cells;
  int omitted = 0;
  uint64_t zeros = 0;
};

std::string decisionLine(const std::string& comm, int collective, int bucket, const DecisionCount& d) {
  auto known = [](int index, const char* name) { return index >= 0 ? std::string(name) : std::string(); };
  const Choice& c = d.key.choice;
  return std::string(kTunerDecisions) + "{" + comm + cellLabels(collective, bucket) +
         ",algorithm=" + quoted(known(c.algorithm, algorithmName(c.algorithm))) +
         ",protocol=" + quoted(known(c.protocol, protocolName(c.protocol))) +
         ",channels=" + quoted(std::to_string(c.channels)) + ",chunk_size=" + quoted(chunkSizeLabel(c.chunkSize)) +
         ",source=" + quoted(decisionSourceName(d.source)) + ",rule=" + quoted(d.rule) + "} " +
         std::to_string(d.count) + "\n";
}

// A switchback's series beside its `ab` series: per arm its index (0: the reference), the plan, whether replays of
// captured collectives were told apart (NCCL 2.28+) and the windows closed; the communicator's unattributed and
// captured collectives; per cell and arm the collectives washed out and, against the reference, the windows paired and
// the sums of their differences of mean bins and of their squares. With the `ab` series' counts and bin sums they are
// what the statistics file gives `ab` for eager collectives (telemetry/switchback.h); the rounds of captures are in the
// statistics file only.
void switchbackSeries(std::string& out, const ProcessLabels& process, const std::vector<CommunicatorSnapshot>& comms,
                      const std::vector<AbCells>& ab) {
  family(out, kSwitchbackArm, "gauge",
         "A switchback communicator's arms (index 0: the reference), its plan, and the analysis windows it closed");
  family(out, kSwitchbackUnattributed, "counter",
         "A switchback communicator's timed collectives whose choice no single arm decided");
  family(out, kSwitchbackCaptured, "counter",
         "A switchback communicator's collectives captured into CUDA graphs: their rounds are in the statistics file");
  family(out, kSwitchbackWashedOut, "counter", "A switchback's collectives left out after a change of arm");
  family(out, kSwitchbackPairedWindows, "counter", "Windows where this arm and the reference timed this cell");
  family(out, kSwitchbackPairedDiffSum, "gauge",
         "Sum over the paired windows of this arm's mean bin minus the reference's");
  family(out, kSwitchbackPairedDiffSquares, "gauge", "Sum over the paired windows of the squared differences");
  for (size_t i = 0; i < comms.size(); ++i) {
    const SwitchbackTimings* t = switchbackOf(comms[i]);
    if (t == nullptr) continue;
    for (size_t arm = 0; arm < t->arms.size(); ++arm) {
      out += std::string(kSwitchbackArm) + "{" + communicatorLabels(process, comms[i], &t->arms[arm]) +
             ",index=" + quoted(std::to_string(arm)) + ",block=" + quoted(std::to_string(t->block)) +
             ",washout=" + quoted(std::to_string(t->washout)) + ",window=" + quoted(std::to_string(t->window)) +
             ",turns_per_round=" + quoted(std::to_string(t->turnsPerRound)) +
             ",captures_tracked=" + quoted(t->capturesTracked ? "1" : "0") + "} " + std::to_string(t->windowsClosed) +
             "\n";
    }
    std::string comm = communicatorLabels(process, comms[i]);
    if (t->unattributed > 0) {
      out += std::string(kSwitchbackUnattributed) + "{" + comm + "} " + std::to_string(t->unattributed) + "\n";
    }
    if (t->captured > 0) {
      out += std::string(kSwitchbackCaptured) + "{" + comm + "} " + std::to_string(t->captured) + "\n";
    }
    for (const auto& [where, cell] : ab[i].cells) {
      for (const SwitchbackCell* s : cell.paired) {
        std::string labels = communicatorLabels(process, comms[i], &t->arms[static_cast<size_t>(s->arm)]) +
                             cellLabels(where.first, where.second);
        if (s->washedOut > 0) {
          out += std::string(kSwitchbackWashedOut) + "{" + labels + "} " + std::to_string(s->washedOut) + "\n";
        }
        if (s->arm == 0) continue;
        out += std::string(kSwitchbackPairedWindows) + "{" + labels + "} " + std::to_string(s->windows) + "\n";
        out += std::string(kSwitchbackPairedDiffSum) + "{" + labels + "} " + exact(s->diffSum) + "\n";
        out += std::string(kSwitchbackPairedDiffSquares) + "{" + labels + "} " + exact(s->diffSumSq) + "\n";
      }
    }
  }
}

void abSeries(std::string& out, const ProcessLabels& process, const std::vector<CommunicatorSnapshot>& comms,
              const std::vector<AbCells>& ab) {
  family(out, kAbLogDuration, "summary",
         "Collectives timed per communicator, rank, collective, size bucket and timing source (_count), and the sum "
         "of their log-histogram bins (_sum: each duration's log in steps of ln(1.01/0.99) above 100 ns, as the "
         "statistics file's bins): a geometric mean is 2e-7 s x gamma^(_sum/_count) / (gamma + 1), gamma = 1.01/0.99");
  for (size_t i = 0; i < comms.size(); ++i) {
    for (const auto& [where, cell] : ab[i].cells) {
      for (const auto& [armAndSource, sums] : cell.bySource) {
        const auto& [arm, source] = armAndSource;
        std::string labels = communicatorLabels(process, comms[i], switchbackOf(comms[i]) ? &arm : nullptr) +
                             cellLabels(where.first, where.second) +
                             ",timing_source=" + quoted(timingSourceName(source));
        out += std::string(kAbLogDurationCount) + "{" + labels + "} " + std::to_string(sums.first) + "\n";
        out += std::string(kAbLogDurationSum) + "{" + labels + "} " + std::to_string(sums.second) + "\n";
      }
    }
  }
  family(out, kTunerDecisions, "counter",
         "Tuner calls per communicator, rank, collective, size bucket and decision: what ran and who chose it");
  for (size_t i = 0; i < comms.size(); ++i) {
    const bool switchback = switchbackOf(comms[i]) != nullptr;
    for (const auto& [where, cell] : ab[i].cells) {
      for (const DecisionCount* d : cell.decisions) {
        std::string comm = communicatorLabels(process, comms[i], switchback ? &d->arm : nullptr);
        out += decisionLine(comm, where.first, where.second, *d);
      }
    }
  }
}

void omittedSeries(std::string& out, const ProcessLabels& process, const std::vector<CommunicatorSnapshot>& comms,
                   const std::vector<AbCells>& ab) {
  family(out, kAbOmittedCells, "gauge",
         "Timed cells (collective x size bucket) of a communicator's rank left out of this file by its series budget: "
         "only the statistics file has them");
  for (size_t i = 0; i < comms.size(); ++i) {
    if (ab[i].omitted == 0) continue;
    out += std::string(kAbOmittedCells) + "{" + communicatorLabels(process, comms[i]) + "} " +
           std::to_string(ab[i].omitted) + "\n";
  }
  family(out, kAbZeroDurations, "counter",
         "Collectives of a communicator's rank timed at or below 0.1 us (the clock could not resolve them): left out "
         "of nccl_roce_ab_log_duration, as ab drops them from statistics files");
  for (size_t i = 0; i < comms.size(); ++i) {
    if (ab[i].zeros == 0) continue;
    out += std::string(kAbZeroDurations) + "{" + communicatorLabels(process, comms[i]) + "} " +
           std::to_string(ab[i].zeros) + "\n";
  }
}

// The switchback arm whose choice a timed key ran, as the profiler attributes it (telemetry::ArmMap, from the same
// decisions): the one arm that decided its algorithm and protocol in its cell with its channel count or NCCL's;
// "" where none or several did. Looked up when the textfile is written, never per collective.
std::string switchbackArmOf(const CommunicatorSnapshot& c, const CellKey& key) {
  std::string arm;
  bool found = false;
  for (const DecisionCount& d : c.decisions ? *c.decisions : std::vector<DecisionCount>()) {
    const Choice& decided = d.key.choice;
    const Choice& ran = key.choice;
    if (d.key.collective != key.collective || d.key.bucket != key.bucket || decided.algorithm != ran.algorithm ||
        decided.protocol != ran.protocol || (decided.channels != 0 && decided.channels != ran.channels) ||
        d.arm == arm) {
      continue;
    }
    if (found) return "";  // several arms ran this choice: it belongs to none
    arm = d.arm;
    found = true;
  }
  return arm;
}

std::string histogramLabels(const ProcessLabels& process, const CommunicatorSnapshot& c, const KeyTimings& k) {
  PolicyIdentity id = identityOf(c);
  const CellKey& key = k.key;
  std::string arm = switchbackOf(c) != nullptr ? switchbackArmOf(c, key) : id.arm;
  return processLabels(process) + ",experiment=" + quoted(id.experiment) +
         ",experiment_hash=" + quoted(id.experimentHash) + ",arm=" + quoted(arm) + ",policy=" + quoted(id.policy) +
         ",policy_hash=" + quoted(id.policyHash) + ",n_nodes=" + quoted(std::to_string(c.nNodes)) +
         cellLabels(key.collective, key.bucket) + ",algo_proto=" +
         quoted(std::string(algorithmName(key.choice.algorithm)) + "_" + protocolName(key.choice.protocol)) +
         ",chunk_size=" + quoted(chunkSizeLabel(key.choice.chunkSize)) + ",rule=" + quoted(k.rule) +
         ",timing_source=" + quoted(timingSourceName(key.source));
}

void histogramSeries(std::string& out, const std::string& labels, const LogHistogram& h) {
  std::vector<std::pair<int, uint64_t>> bins = h.nonEmptyBins();
  size_t next = 0;
  uint64_t cumulative = 0;
  for (double bound : exportedBucketBoundsSeconds()) {
    while (next < bins.size() && LogHistogram::representativeNs(bins[next].first) <= bound * 1e9) {
      cumulative += bins[next++].second;
    }
    out += std::string(kCollectiveDuration) + "_bucket{" + labels + ",le=" + quoted(number(bound)) + "} " +
           std::to_string(cumulative) + "\n";
  }
  out += std::string(kCollectiveDuration) + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(h.count()) + "\n";
  out += std::string(kCollectiveDuration) + "_count{" + labels + "} " + std::to_string(h.count()) + "\n";
  out +=
      std::string(kCollectiveDuration) + "_sum{" + labels + "} " + number(static_cast<double>(h.sumNs()) / 1e9) + "\n";
}

// The histograms of the process's communicators, merged per arm, cell and choice.
void armHistograms(std::string& out, const ProcessLabels& process, const std::vector<CommunicatorSnapshot>& comms) {
  std::map<std::string, LogHistogram> byLabels;
  for (const CommunicatorSnapshot& c : comms) {
    if (!c.timings) continue;
    for (const KeyTimings& k : c.timings->keys) byLabels[histogramLabels(process, c, k)].merge(k.histogram);
  }
  family(out, kCollectiveDuration, "histogram",
         "NCCL collective duration on the GPU (earliest channel start to latest stop), per process, arm, size "
         "bucket and choice",
         "seconds");
  for (const auto& [labels, h] : byLabels) histogramSeries(out, labels, h);
}

void droppedSeries(std::string& out, const ProcessLabels& process, const std::vector<CommunicatorSnapshot>& comms) {
  family(out, kDroppedEvents, "counter", "profiler events that could not be used, by reason");
  for (const CommunicatorSnapshot& c : comms) {
    if (!c.timings) continue;
    for (int why = 0; why < kNumDrops; ++why) {
      uint64_t count = c.timings->dropped[static_cast<size_t>(why)];
      if (count == 0) continue;
      out += std::string(kDroppedEvents) + "{" + processLabels(process) + ",comm_id=" + quoted(formatHexId(c.commId)) +
             ",rank=" + quoted(std::to_string(c.rank.value_or(-1))) +
             ",reason=" + quoted(dropName(static_cast<Drop>(why))) + "} " + std::to_string(count) + "\n";
    }
  }
}

void writeFailureSeries(std::string& out, const ProcessLabels& process, const ProcessCounters& counters) {
  family(out, kWriteFailures, "counter", "writes of this process's statistics files and metrics textfile that failed");
  for (const auto& [file, count] : {std::pair<const char*, uint64_t>{"statistics", counters.statisticsWriteFailures},
                                    {"metrics", counters.metricsWriteFailures}}) {
    out += std::string(kWriteFailures) + "{" + processLabels(process) + ",file=" + quoted(file) + "} " +
           std::to_string(count) + "\n";
  }
}

// ---- Reading ----

Status invalid(const std::string& what) {
  return Status(StatusCode::kParseError, what);
}

std::string describe(const MetricSample& s) {
  std::string out = s.name + "{";
  for (const auto& [name, text] : s.labels) out += (out.back() == '{' ? "" : ",") + name + "=\"" + text + "\"";
  return out + "}";
}

std::string label(const MetricSample& s, const std::string& name) {
  auto it = s.labels.find(name);
  return it == s.labels.end() ? std::string() : it->second;
}

// A sample value that is one of our counts: a whole number within float64's exact integers.
std::optional<uint64_t> exactCount(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0 || v > 9007199254740992.0 ||
      v != std::floor(v)) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(v);
}

std::optional<int> intLabel(const MetricSample& s, const char* name, int hi) {
  std::optional<uint64_t> v = parseUnsigned(label(s, name));
  if (!v || *v > static_cast<uint64_t>(hi)) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<int> bucketOfLabel(const std::string& text) {
  for (int b = 0; b < 64; ++b) {
    if (bucketLabel(b) == text) return b;
  }
  return std::nullopt;
}

using RankMap = std::map<std::string, RankSeries>;

// What identifies a sample's communicator rank: its labels of abCommunicatorLabels, but for `arm` with `withArm`
// false (the arms of a switchback are one communicator's).
std::string rankKey(const MetricSample& s, bool withArm = true) {
  std::string key;
  for (const std::string& name : abCommunicatorLabels()) key += (withArm || name != "arm" ? label(s, name) : "") + '\0';
  return key;
}

// The rank series a sample belongs to, made on first sight.
StatusOr<RankSeries*> rankOf(const MetricSample& s, RankMap& ranks) {
  std::string key = rankKey(s);
  auto [it, added] = ranks.try_emplace(key);
  RankSeries& r = it->second;
  if (!added) return &r;
  std::optional<uint64_t> commId = parseHexId(label(s, "comm_id"));
  std::optional<int> rank = label(s, "rank") == "-1" ? std::optional<int>(-1) : intLabel(s, "rank", INT32_MAX);
  std::optional<int> nRanks = intLabel(s, "nranks", INT32_MAX), nNodes = intLabel(s, "n_nodes", INT32_MAX);
  if (!commId || !rank || !nRanks || !nNodes) {
    return invalid(describe(s) + ": comm_id, rank, nranks or n_nodes is not what the plugin writes");
  }
  r.commId = *commId;
  r.rank = *rank;
  r.nRanks = *nRanks;
  r.nNodes = *nNodes;
  r.identity.experiment = label(s, "experiment");
  r.identity.experimentHash = label(s, "experiment_hash");
  r.identity.arm = label(s, "arm");
  r.identity.policy = label(s, "policy");
  r.identity.policyHash = label(s, "policy_hash");
  return &r;
}

std::optional<TimingSource> timingSourceNamed(const std::string& name) {
  for (TimingSource s : {TimingSource::kKernelGpu, TimingSource::kKernelGpuBatch, TimingSource::kKernelHost}) {
    if (name == timingSourceName(s)) return s;
  }
  return std::nullopt;
}

// A count's cell and clock from its labels; an error naming the first label that is not what the writer wrote.
StatusOr<std::tuple<int, int, TimingSource>> cellOfSample(const MetricSample& s) {
  std::optional<int> collective = parseCollective(label(s, "collective"));
  std::optional<int> bucket = bucketOfLabel(label(s, "message_size"));
  std::optional<TimingSource> source = timingSourceNamed(label(s, "timing_source"));
  const char* wrong = !collective ? "collective" : !bucket ? "message_size" : !source ? "timing_source" : nullptr;
  if (wrong != nullptr) return invalid(describe(s) + ": " + wrong + " is not what the plugin writes");
  return std::tuple<int, int, TimingSource>{*collective, *bucket, *source};
}

// Counts and bin sums are pairs of samples with the same labels (one textfile line each, scraped together).
Status addTimings(const std::vector<const MetricSample*>& counts, const std::vector<const MetricSample*>& sums,
                  RankMap& ranks) {
  std::map<std::map<std::string, std::string>, uint64_t> sumOf;
  for (const MetricSample* s : sums) {
    std::optional<uint64_t> binSum = exactCount(s->value);
    if (!binSum) return invalid(describe(*s) + " is " + s->value + ", not a count");
    sumOf[s->labels] = *binSum;
  }
  for (const MetricSample* s : counts) {
    std::optional<uint64_t> count = exactCount(s->value);
    if (!count) return invalid(describe(*s) + " is " + s->value + ", not a count");
    StatusOr<std::tuple<int, int, TimingSource>> cell = cellOfSample(*s);
    if (!cell.isOk()) return cell.status();
    auto sum = sumOf.find(s->labels);
    if (sum == sumOf.end()) {
      return invalid(describe(*s) + " has no " + kAbLogDurationSum +
                     " with the same labels: each count needs its sum (is the window cut through a scrape?)");
    }
    StatusOr<RankSeries*> r = rankOf(*s, ranks);
    if (!r.isOk()) return r.status();
    RankSeries::Cell& c = (*r)->timings[*cell];
    c.count += *count;
    c.binSum += sum->second;
  }
  if (sumOf.size() != counts.size()) {
    return invalid(std::to_string(counts.size()) + " series of " + kAbLogDurationCount + " but " +
                   std::to_string(sums.size()) + " of " + kAbLogDurationSum +
                   ": each count needs its sum (is the window cut through a scrape?)");
  }
  return Status::ok();
}

StatusOr<DecisionCount> decisionOf(const MetricSample& s) {
  auto choice = [&](const char* name, auto parse) {
    std::string text = label(s, name);
    return text.empty() ? std::optional<int>(-1) : parse(text);
  };
  std::optional<int> collective = parseCollective(label(s, "collective"));
  std::optional<int> bucket = bucketOfLabel(label(s, "message_size"));
  std::optional<int> algorithm = choice("algorithm", parseAlgorithm), protocol = choice("protocol", parseProtocol);
  std::optional<int> channels = intLabel(s, "channels", 64);
  std::optional<uint32_t> chunk =
      label(s, "chunk_size").empty() ? uint32_t{0} : chunkSizeFromLabel(label(s, "chunk_size"));
  std::optional<DecisionSource> source = decisionSourceNamed(label(s, "source"));
  std::optional<uint64_t> count = exactCount(s.value);
  if (!collective || !bucket || !algorithm || !protocol || !channels || !chunk || !source || !count) {
    return invalid(describe(s) + ": a label or the value is not what the plugin writes");
  }
  DecisionCount d;
  d.key = cellKey(*collective, bucketMinBytes(*bucket), *algorithm, *protocol, *channels, *chunk);
  d.source = *source;
  d.rule = label(s, "rule");
  d.count = *count;
  return d;
}

// What follows a label's value: ',' and the next label, or the closing brace.
bool readLabelValue(std::string_view line, size_t* at, std::string* value) {
  if (*at >= line.size() || line[*at] != '"') return false;
  for (++*at; *at < line.size(); ++*at) {
    char c = line[*at];
    if (c == '"') {
      ++*at;
      return true;
    }
    if (c == '\\') {
      if (++*at >= line.size()) return false;
      char e = line[*at];
      if (e != '\\' && e != '"' && e != 'n') return false;
      *value += e == 'n' ? '\n' : e;
    } else {
      *value += c;
    }
  }
  return false;
}

bool nameChar(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || (!first && c >= '0' && c <= '9');
}

size_t nameEnd(std::string_view line, size_t from) {
  size_t at = from;
  while (at < line.size() && nameChar(line[at], at == from)) ++at;
  return at;
}

bool readLabels(std::string_view line, size_t* at, std::map<std::string, std::string>* labels) {
  ++*at;  // '{'
  while (*at < line.size() && line[*at] != '}') {
    size_t end = nameEnd(line, *at);
    if (end == *at || end >= line.size() || line[end] != '=') return false;
    std::string name(line.substr(*at, end - *at)), value;
    *at = end + 1;
    if (!readLabelValue(line, at, &value) || !labels->emplace(name, value).second) return false;
    if (*at < line.size() && line[*at] == ',') ++*at;
  }
  if (*at >= line.size()) return false;
  ++*at;  // '}'
  return true;
}

StatusOr<MetricSample> parseSampleLine(std::string_view line, size_t number) {
  MetricSample s;
  size_t at = nameEnd(line, 0);
  auto bad = [&] {
    return invalid("textfile line " + std::to_string(number) + " is not a sample: " + std::string(line));
  };
  if (at == 0) return bad();
  s.name = std::string(line.substr(0, at));
  if (at < line.size() && line[at] == '{' && !readLabels(line, &at, &s.labels)) return bad();
  if (at >= line.size() || line[at] != ' ') return bad();
  std::vector<std::string_view> rest = split(trim(line.substr(at)), ' ');
  if (rest.empty() || rest.size() > 2 || rest[0].empty()) return bad();  // a value, and perhaps a timestamp
  s.value = std::string(rest[0]);
  return s;
}

}  // namespace

const std::vector<std::string>& abCommunicatorLabels() {
  static const std::vector<std::string> names = {
      "experiment", "experiment_hash", "arm", "policy", "policy_hash", "comm_id", "rank", "nranks", "n_nodes"};
  return names;
}

const std::vector<std::string>& abTimingLabels() {
  static const std::vector<std::string> names = {"collective", "message_size", "timing_source"};
  return names;
}

const std::vector<std::string>& abDecisionLabels() {
  static const std::vector<std::string> names = {"collective", "message_size", "algorithm", "protocol",
                                                 "channels",   "chunk_size",   "source",    "rule"};
  return names;
}

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

std::string renderTextfile(const ProcessLabels& process, const std::vector<CommunicatorSnapshot>& communicators,
                           const ProcessCounters& counters) {
  std::vector<AbCells> ab(communicators.size());
  for (size_t i = 0; i < communicators.size(); ++i) {
    ab[i].cells = budgeted(timedCells(communicators[i], &ab[i].zeros), &ab[i].omitted);
  }
  std::string out;
  abSeries(out, process, communicators, ab);
  switchbackSeries(out, process, communicators, ab);
  omittedSeries(out, process, communicators, ab);
  armHistograms(out, process, communicators);
  droppedSeries(out, process, communicators);
  writeFailureSeries(out, process, counters);
  return out + "# EOF\n";
}

StatusOr<std::vector<MetricSample>> parseTextfile(std::string_view text) {
  std::vector<MetricSample> samples;
  size_t number = 0;
  for (std::string_view line : split(text, '\n')) {
    ++number;
    if (trim(line).empty() || line[0] == '#') continue;
    StatusOr<MetricSample> s = parseSampleLine(line, number);
    if (!s.isOk()) return s.status();
    samples.push_back(std::move(*s));
  }
  return samples;
}

namespace {

// A switchback communicator rank's series as they are read: its arms by index, then per arm and cell.
struct SwitchbackRead {
  SwitchbackTimings timings;
  std::map<uint32_t, std::string> arms;                               // index -> name
  std::map<std::string, const MetricSample*> of;                      // an arm's first series, for its rank's labels
  std::map<std::tuple<std::string, int, int>, SwitchbackCell> cells;  // (arm, collective, bucket)
};

StatusOr<double> exactValue(const MetricSample& s) {
  char* end = nullptr;
  double v = std::strtod(s.value.c_str(), &end);
  if (s.value.empty() || end != s.value.c_str() + s.value.size() || !std::isfinite(v)) {
    return invalid(describe(s) + " is " + s.value + ", not a number");
  }
  return v;
}

// One sample of the switchback families into its communicator rank's reading.
Status addSwitchbackSample(const MetricSample& s, std::map<std::string, SwitchbackRead>& read) {
  SwitchbackRead& r = read[rankKey(s, false)];
  if (s.name == kSwitchbackUnattributed || s.name == kSwitchbackCaptured) {
    std::optional<uint64_t> v = exactCount(s.value);
    if (!v) return invalid(describe(s) + " is " + s.value + ", not a count");
    (s.name == kSwitchbackUnattributed ? r.timings.unattributed : r.timings.captured) = *v;
    return Status::ok();
  }
  const std::string arm = label(s, "arm");
  if (s.name == kSwitchbackArm) {
    std::optional<int> index = intLabel(s, "index", ArmMap::kMaxArms - 1), block = intLabel(s, "block", INT32_MAX),
                       washout = intLabel(s, "washout", INT32_MAX), window = intLabel(s, "window", INT32_MAX),
                       turns = intLabel(s, "turns_per_round", INT32_MAX), tracked = intLabel(s, "captures_tracked", 1);
    std::optional<uint64_t> closed = exactCount(s.value);
    if (!index || !block || !washout || !window || !turns || !tracked || !closed ||
        !r.arms.emplace(static_cast<uint32_t>(*index), arm).second) {
      return invalid(describe(s) + ": not a switchback arm the plugin writes");
    }
    r.timings.block = static_cast<uint32_t>(*block);
    r.timings.washout = static_cast<uint32_t>(*washout);
    r.timings.window = static_cast<uint32_t>(*window);
    r.timings.turnsPerRound = static_cast<uint32_t>(*turns);
    r.timings.windowsClosed = *closed;
    r.timings.capturesTracked = *tracked == 1;
    r.of.try_emplace(arm, &s);
    return Status::ok();
  }
  std::optional<int> collective = parseCollective(label(s, "collective"));
  std::optional<int> bucket = bucketOfLabel(label(s, "message_size"));
  if (!collective || !bucket)
    return invalid(describe(s) + ": collective or message_size is not what the plugin writes");
  SwitchbackCell& cell = r.cells[{arm, *collective, *bucket}];
  if (s.name == kSwitchbackPairedDiffSum || s.name == kSwitchbackPairedDiffSquares) {
    StatusOr<double> v = exactValue(s);
    if (!v.isOk()) return v.status();
    (s.name == kSwitchbackPairedDiffSum ? cell.diffSum : cell.diffSumSq) = *v;
    return Status::ok();
  }
  std::optional<uint64_t> v = exactCount(s.value);
  if (!v) return invalid(describe(s) + " is " + s.value + ", not a count");
  (s.name == kSwitchbackWashedOut ? cell.washedOut : cell.windows) = *v;
  return Status::ok();
}

bool isSwitchbackFamily(const std::string& name) {
  for (const char* family : {kSwitchbackArm, kSwitchbackUnattributed, kSwitchbackCaptured, kSwitchbackWashedOut,
                             kSwitchbackPairedWindows, kSwitchbackPairedDiffSum, kSwitchbackPairedDiffSquares}) {
    if (name == family) return true;
  }
  return false;
}

// A switchback's arms, each read as a rank series of its own, into one: the communicator rank's series with no
// arm, its timings and decisions over every arm, and its switchback timings (each arm's count and bin sum per cell,
// with its windows).
Status mergeSwitchback(SwitchbackRead& sb, RankMap& ranks) {
  if (sb.arms.empty()) {
    return invalid(std::string("switchback series without their communicator's ") + kSwitchbackArm +
                   " (is the window cut through a scrape?)");
  }
  RankSeries merged;
  bool first = true;
  for (const auto& [index, arm] : sb.arms) {
    if (index != sb.timings.arms.size()) return invalid(std::string(kSwitchbackArm) + ": the arms' indices have a gap");
    sb.timings.arms.push_back(arm);
    auto it = ranks.find(rankKey(*sb.of[arm]));
    if (it == ranks.end()) continue;  // an arm that timed nothing yet
    RankSeries& r = it->second;
    if (first) {
      merged.commId = r.commId;
      merged.rank = r.rank;
      merged.nRanks = r.nRanks;
      merged.nNodes = r.nNodes;
      merged.identity = r.identity;
      merged.identity.arm.clear();
      merged.identity.design = "switchback";
      first = false;
    }
    for (const auto& [where, cell] : r.timings) {
      RankSeries::Cell& to = merged.timings[where];
      to.count += cell.count;
      to.binSum += cell.binSum;
      SwitchbackCell& sc = sb.cells[{arm, std::get<0>(where), std::get<1>(where)}];
      sc.count += cell.count;
      sc.binSum += cell.binSum;
    }
    for (DecisionCount& d : r.decisions) {
      d.arm = arm;
      merged.decisions.push_back(std::move(d));
    }
    merged.zeroDurations += r.zeroDurations;
    merged.omittedCells += r.omittedCells;
    ranks.erase(it);
  }
  if (first) return Status::ok();  // no arm timed anything yet
  for (auto& [where, cell] : sb.cells) {
    const auto& [arm, collective, bucket] = where;
    for (uint32_t i = 0; i < sb.timings.arms.size(); ++i) {
      if (sb.timings.arms[i] == arm) cell.arm = static_cast<int>(i);
    }
    cell.collective = collective;
    cell.bucket = bucket;
    if (cell.count > 0) sb.timings.cells.push_back(cell);
  }
  std::sort(sb.timings.cells.begin(), sb.timings.cells.end(), [](const SwitchbackCell& a, const SwitchbackCell& b) {
    return std::tie(a.collective, a.bucket, a.arm) < std::tie(b.collective, b.bucket, b.arm);  // as the profiler
  });
  merged.switchback = std::move(sb.timings);
  std::string key = rankKey(*sb.of.begin()->second, false);
  ranks.emplace(key, std::move(merged));
  return Status::ok();
}

}  // namespace

StatusOr<std::vector<RankSeries>> readAbSeries(const std::vector<MetricSample>& samples) {
  std::vector<const MetricSample*> counts, sums;
  RankMap ranks;
  for (const MetricSample& s : samples) {
    if (s.name == kAbLogDurationCount) counts.push_back(&s);
    if (s.name == kAbLogDurationSum) sums.push_back(&s);
  }
  if (Status timed = addTimings(counts, sums, ranks); !timed.isOk()) return timed;
  for (const MetricSample& s : samples) {
    bool decision = s.name == kTunerDecisions, zero = s.name == kAbZeroDurations, omitted = s.name == kAbOmittedCells;
    if (!decision && !zero && !omitted) continue;
    std::optional<uint64_t> value = exactCount(s.value);
    if (!value) return invalid(describe(s) + " is " + s.value + ", not a count");
    StatusOr<RankSeries*> r = rankOf(s, ranks);
    if (!r.isOk()) return r.status();
    if (zero) (*r)->zeroDurations += *value;
    if (omitted) (*r)->omittedCells += *value;
    if (!decision) continue;
    StatusOr<DecisionCount> d = decisionOf(s);
    if (!d.isOk()) return d.status();
    (*r)->decisions.push_back(std::move(*d));
  }
  std::map<std::string, SwitchbackRead> switchbacks;
  for (const MetricSample& s : samples) {
    if (!isSwitchbackFamily(s.name)) continue;
    if (Status added = addSwitchbackSample(s, switchbacks); !added.isOk()) return added;
  }
  for (auto& [key, sb] : switchbacks) {
    if (Status merged = mergeSwitchback(sb, ranks); !merged.isOk()) return merged;
  }
  std::vector<RankSeries> out;
  for (auto& [key, r] : ranks) out.push_back(std::move(r));
  return out;
}

}  // namespace nccl_roce::telemetry
