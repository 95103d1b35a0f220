#include "nccl-tests-integration/sweep/degenerate_comparison.h"

#include "common/strings.h"
#include "verdicts/flat_timings.h"

namespace nccl_roce::sweep {

namespace {

// The configurations NCCL ran at a size, as "Ring/LL on 1-2 channels" (channels as a range when they vary).
std::string describeRan(const std::set<telemetry::Choice>& ran) {
  std::map<std::pair<int, int>, std::pair<int, int>> channels;  // (algorithm, protocol) -> channel range
  for (const telemetry::Choice& c : ran) {
    const int count = c.channels;
    auto [it, fresh] = channels.try_emplace({c.algorithm, c.protocol}, count, count);
    it->second.first = std::min(it->second.first, count);
    it->second.second = std::max(it->second.second, count);
  }
  std::string out;
  for (const auto& [choice, range] : channels) {
    out += out.empty() ? "" : ", ";
    out += std::string(telemetry::algorithmName(choice.first)) + "/" + telemetry::protocolName(choice.second) + " on ";
    out += range.first == range.second ? std::to_string(range.first)
                                       : std::to_string(range.first) + "-" + std::to_string(range.second);
    out += range.second == 1 ? " channel" : " channels";
  }
  return out;
}

std::string sizeList(const std::vector<uint64_t>& sizes) {
  std::string out;
  for (uint64_t s : sizes) out += (out.empty() ? "" : ", ") + formatByteSize(s);
  return out;
}

void noteSameConfiguration(const SeriesComparison& s, const SideConfigurations& a, const SideConfigurations& b,
                           std::vector<std::string>* notes) {
  const std::string series = s.key.describe();
  // Only an explicit force is the same on both sides whatever else ran: two NCCL-default sides may differ by a tuner
  // plugin their logs do not name (aws-ofi-nccl's in tests/data/nccl-tests), so their TUNING lines decide.
  if (a.forced && b.forced && *a.forced == *b.forced && !a.forced->isDefault()) {
    notes->push_back("A/A: both sides of " + series + " forced the same configuration (" + a.forced->describe() +
                     ") in every run: a difference is noise, not the configuration");
    return;
  }
  std::optional<int> collective = telemetry::parseCollective(s.key.collective);
  if (!collective) return;
  std::vector<uint64_t> alike;
  std::set<telemetry::Choice> union_;
  for (const verdicts::CellComparison& cell : s.result.cells) {
    auto ranA = a.ran.find({*collective, cell.cell});
    auto ranB = b.ran.find({*collective, cell.cell});
    if (ranA == a.ran.end() || ranB == b.ran.end() || ranA->second != ranB->second) continue;
    alike.push_back(cell.cell);
    union_.insert(ranA->second.begin(), ranA->second.end());
  }
  if (alike.empty()) return;
  const std::string count = alike.size() == s.result.cells.size()
                                ? "every size (" + std::to_string(alike.size()) + ")"
                                : std::to_string(alike.size()) + " of " + std::to_string(s.result.cells.size()) +
                                      " sizes (" + sizeList(alike) + ")";
  notes->push_back("A/A at " + count + " of " + series +
                   ": NCCL's TUNING lines show the same algorithm, protocol and channels on both sides there (" +
                   describeRan(union_) + "), so a difference there is noise, not the configuration");
}

void noteFlat(const SeriesComparison& s, const Comparison& c, std::vector<std::string>* notes) {
  std::map<uint64_t, double> timesA, timesB;
  for (const verdicts::CellComparison& cell : s.result.cells) {
    if (cell.nA > 0) timesA[cell.cell] = cell.geomeanA;
    if (cell.nB > 0) timesB[cell.cell] = cell.geomeanB;
  }
  auto note = [&](const char* side, const std::string& label, const std::map<uint64_t, double>& times) {
    std::optional<verdicts::FlatSpan> flat = verdicts::findFlatSpan(times);
    if (!flat) return;
    std::string who = std::string(side) + (label.empty() ? "" : " (" + label + ")");
    notes->push_back("flat timings: " + who + "'s " + s.key.describe() + " took " + verdicts::describeFlatSpan(*flat) +
                     ": " + verdicts::kFlatMeaning);
  };
  note("A", c.labelA, timesA);
  note("B", c.labelB, timesB);
}

}  // namespace

SideConfigurations configurationsOf(const std::vector<PerfLog>& logs, const std::vector<inspect::NcclInfoLog>& nccl) {
  SideConfigurations out;
  bool first = true, same = true;
  for (const PerfLog& log : logs) {
    for (const PerfRun& run : log.runs) {
      std::string why;
      std::optional<ForcedConfig> forced = forcedConfigOf(run, &why);
      if (!forced || (!first && (!out.forced || *out.forced != *forced))) same = false;
      if (first) out.forced = forced;
      first = false;
    }
  }
  if (!same || first) out.forced.reset();
  for (const inspect::NcclInfoLog& log : nccl) {
    for (const inspect::NcclProcessLog& p : log.processes) {
      // Rank 0 prints the TUNING lines of its communicators; the driver and nccl-tests have one communicator.
      int nRanks = 0;
      for (const inspect::NcclCommunicatorLine& comm : p.communicators) {
        if (comm.rank == 0) nRanks = comm.nRanks;
      }
      for (const inspect::NcclTuningLine& t : p.tuning) {
        out.ran[{t.collective, t.tunerBytes(nRanks)}].insert(
            telemetry::Choice::of(t.algorithm, t.protocol, t.channels()));
      }
    }
  }
  return out;
}

std::vector<std::string> degenerateNotes(const Comparison& comparison, const SideConfigurations& a,
                                         const SideConfigurations& b) {
  std::vector<std::string> notes;
  for (const SeriesComparison& s : comparison.series) {
    noteSameConfiguration(s, a, b, &notes);
    noteFlat(s, comparison, &notes);
  }
  return notes;
}

}  // namespace nccl_roce::sweep
