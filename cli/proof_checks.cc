// The checks of `nccl-roce proof` (docs/gpu-proof.md, "What each check means"). Each decides from files alone, with
// the project's own readers and judges: policy verify's (inspect/policy_verify.h), the driver's count check
// (nccl-tests-integration/driver/count_check.h), flat timings (verdicts/flat_timings.h), `sweep compare` and `ab`.
#include <map>
#include <set>

#include "cli/proof.h"
#include "common/file.h"
#include "common/strings.h"
#include "fleet/ab_comparison.h"
#include "fleet/fleet_files.h"
#include "inspect/policy_verify.h"
#include "nccl-tests-integration/driver/count_check.h"
#include "nccl-tests-integration/sweep/compare.h"
#include "nccl-tests-integration/sweep/compare_report.h"
#include "nccl-tests-integration/sweep/degenerate_comparison.h"
#include "nccl-tests-integration/sweep/sample_set.h"
#include "policy/policy_loader.h"
#include "telemetry/choice.h"
#include "verdicts/flat_timings.h"

namespace nccl_roce::cli::proof {

namespace {

Check make(const std::string& name, CheckStatus status, std::string summary, std::vector<std::string> details = {}) {
  return {name, status, std::move(summary), std::move(details)};
}

std::string processName(const inspect::NcclProcessLog& p) {
  return p.host + ":" + std::to_string(p.pid);
}

// --- plugins-loaded ----------------------------------------------------------------------------------------------

Check pluginsLoaded(const Inputs& in) {
  const char* name = "plugins-loaded";
  const Configuration* run = in.sweep.policyRun();
  if (run == nullptr) return make(name, CheckStatus::kFail, "no policy run in OUT/sweep (a directory policy-NAME)");
  std::vector<std::string> details, missing;
  int processes = 0;
  for (const inspect::NcclInfoLog& log : run->nccl) {
    for (const inspect::NcclProcessLog& p : log.processes) {
      if (p.communicators.empty()) continue;
      ++processes;
      int nodes = 0;
      for (const inspect::RoceTunerLine& t : p.roceTuners) nodes = std::max(nodes, t.nNodes);
      std::vector<std::string> lacks;
      if (p.envPlugin != "nccl-roce") lacks.push_back("env plugin");
      if (p.tunerPlugin != "nccl-roce") lacks.push_back("tuner plugin");
      if (p.profilerPlugin != "nccl-roce") lacks.push_back("profiler plugin");
      if (p.roceTuners.empty()) lacks.push_back("our tuner's 'uses policy' line");
      if (!p.roceTuners.empty() && nodes < 2) lacks.push_back("more than one node (NCCL_HOSTID per rank)");
      std::string line = processName(p) + " (" + log.source + "): NCCL " + p.ncclVersion + ", env " +
                         (p.envPlugin.empty() ? "-" : p.envPlugin) + ", net " +
                         (p.netPlugin.empty() ? "-" : p.netPlugin) + ", tuner " +
                         (p.tunerPlugin.empty() ? "-" : p.tunerPlugin) + ", profiler " +
                         (p.profilerPlugin.empty() ? "-" : p.profilerPlugin) + ", " + std::to_string(nodes) + " nodes";
      for (const std::string& l : lacks) missing.push_back(processName(p) + ": no " + l);
      details.push_back(line);
    }
  }
  if (processes == 0) return make(name, CheckStatus::kFail, "no NCCL INFO lines in " + run->dir, details);
  if (!missing.empty()) {
    details.insert(details.begin(), missing.begin(), missing.end());
    return make(name, CheckStatus::kFail, std::to_string(missing.size()) + " plugin line(s) missing", details);
  }
  return make(name, CheckStatus::kPass,
              "NCCL loaded nccl-roce's env, tuner and profiler plugins in all " + std::to_string(processes) +
                  " processes, each its own node",
              details);
}

// --- policy-obeyed -----------------------------------------------------------------------------------------------

// The policy a run's logs name: a built-in name, a path as given, or (results copied elsewhere) the file of that
// name in OUT.
std::shared_ptr<const policy::ActivePolicy> policyOf(const Inputs& in, const std::string& requested) {
  std::string spec = requested;
  if (requested.find('/') != std::string::npos && !readFileBounded(requested, 1 << 20).isOk()) {
    spec = in.dir + "/" + requested.substr(requested.rfind('/') + 1);
  }
  return policy::loadPolicySpec(spec, nullptr);
}

std::string ranText(const std::set<telemetry::Choice>& ran) {
  std::string out;
  for (const telemetry::Choice& c : ran) {
    out += (out.empty() ? "" : ", ") + std::string(telemetry::algorithmName(c.algorithm)) + "/" +
           telemetry::protocolName(c.protocol) + " on " + std::to_string(c.channels) +
           (c.channels == 1 ? " channel" : " channels");
  }
  return out;
}

Check policyObeyed(const Inputs& in) {
  const char* name = "policy-obeyed";
  const Configuration* run = in.sweep.policyRun();
  if (run == nullptr || run->policy.empty()) {
    return make(name, CheckStatus::kFail, "no policy run in OUT/sweep whose logs name NCCL_ROCE_POLICY");
  }
  auto active = policyOf(in, run->policy);
  if (!active->error().empty()) return make(name, CheckStatus::kFail, "policy " + run->policy + ": " + active->error());
  std::vector<inspect::NcclInfoLog> logs = run->nccl;
  if (const Configuration* graph = in.graph.policyRun())
    logs.insert(logs.end(), graph->nccl.begin(), graph->nccl.end());
  inspect::VerifyReport report = inspect::verifyPolicy(*active, logs);
  std::vector<std::string> details = report.problems;
  for (const inspect::VerifiedCell& c : report.cells) {
    if (c.status == inspect::VerifyStatus::kMismatch) {
      details.push_back(std::string(telemetry::collectiveName(c.collective)) + " " + formatByteSize(c.bytes) +
                        ": MISMATCH, forced " + c.forced + ": " + c.why);
    }
  }
  // Where NCCL, left to itself in the default run, ran something else than it ran under the policy.
  const Configuration* own = in.sweep.find("default");
  sweep::SideConfigurations defaults =
      own ? sweep::configurationsOf(own->tables, own->nccl) : sweep::SideConfigurations{};
  int diverged = 0;
  for (const inspect::VerifiedCell& c : report.cells) {
    if (c.status != inspect::VerifyStatus::kMatch) continue;
    auto found = defaults.ran.find({c.collective, c.bytes});
    std::set<telemetry::Choice> ran;
    for (const inspect::RanConfig& r : c.ran) ran.insert(telemetry::Choice::of(r.algorithm, r.protocol, r.channels));
    if (found == defaults.ran.end() || found->second == ran) continue;
    ++diverged;
    details.push_back(std::string(telemetry::collectiveName(c.collective)) + " " + formatByteSize(c.bytes) +
                      ": NCCL's own " + ranText(found->second) + "; under the policy " + ranText(ran) + ", as '" +
                      c.ruleName + "' forces (" + c.forced + ")");
  }
  const std::string counts = std::to_string(report.count(inspect::VerifyStatus::kMatch)) + " sizes match, " +
                             std::to_string(report.count(inspect::VerifyStatus::kMismatch)) + " mismatch over " +
                             std::to_string(report.calls) + " TUNING lines";
  if (!report.ok())
    return make(name, CheckStatus::kFail, "NCCL did not run what the policy decides: " + counts, details);
  if (own == nullptr) {
    return make(name, CheckStatus::kFail, counts + ", but no default run (OUT/sweep/default) shows NCCL's own choices",
                details);
  }
  if (diverged == 0) {
    return make(name, CheckStatus::kFail,
                counts +
                    ", but at every such size NCCL's own choice (the default run) is the same: nothing shows "
                    "NCCL obeying a decision it would not make itself",
                details);
  }
  return make(name, CheckStatus::kPass,
              "NCCL ran what '" + report.policyName + "' decides (" + counts + "), at " + std::to_string(diverged) +
                  " sizes against its own choice",
              details);
}

// --- timed-collectives, graph-replays ----------------------------------------------------------------------------

Check countsOf(const char* name, const std::vector<const Group*>& groups, bool graph) {
  std::vector<std::string> details, problems;
  int lines = 0;
  uint64_t captured = 0, replayed = 0, timed = 0;
  for (const Group* g : groups) {
    for (const Configuration& c : g->configurations) {
      for (const driver::CountCheck& check : driver::checkCounts(c.issued, g->stats)) {
        ++lines;
        captured += check.issued.counts.captured;
        replayed += check.issued.counts.replayed;
        timed += check.timed;
        details.push_back(c.label + ": " + driver::describeCountCheck(check));
        if (!check.ok()) problems.push_back(c.label + ": " + driver::describeCountCheck(check));
      }
    }
  }
  if (lines == 0) {
    return make(name, CheckStatus::kFail,
                graph ? "no graph run with the driver's '# nccl-roce-issued:' lines in OUT/graph"
                      : "no '# nccl-roce-issued:' line in the runs' logs: the driver counts what it issues since this "
                        "check exists (an older driver does not)");
  }
  if (!problems.empty()) {
    return make(
        name, CheckStatus::kFail,
        std::to_string(problems.size()) + " of " + std::to_string(lines) + " counts disagree with the statistics files",
        problems);
  }
  if (graph && (captured == 0 || replayed == 0)) {
    return make(name, CheckStatus::kFail, "the graph run captured no collective (the driver's -G was not given)",
                details);
  }
  std::string summary = graph ? "every graph replay timed: " + std::to_string(replayed) + " replayed collectives of " +
                                    std::to_string(captured) + " captured, the tuner asked once per capture"
                              : "every collective timed once and decided once, none dropped: " + std::to_string(timed) +
                                    " collectives in " + std::to_string(lines) + " counts";
  return make(name, CheckStatus::kPass, summary, details);
}

// --- timing-quantum ----------------------------------------------------------------------------------------------

// The flat spans of every rank-0 table of the sweep, by run.
std::vector<std::string> flatRuns(const Inputs& in, int* runs) {
  std::vector<std::string> out;
  for (const Configuration& c : in.sweep.configurations) {
    for (const sweep::PerfLog& log : c.tables) {
      for (const sweep::PerfRun& run : log.runs) {
        std::map<uint64_t, double> times;
        for (const sweep::PerfRow& row : run.rows) {
          if (row.outOfPlace && row.outOfPlace->timeUs) times[row.size] = *row.outOfPlace->timeUs;
        }
        if (times.empty()) continue;
        ++*runs;
        if (std::optional<verdicts::FlatSpan> flat = verdicts::findFlatSpan(times)) {
          out.push_back(log.source + ": " + verdicts::describeFlatSpan(*flat));
        }
      }
    }
  }
  return out;
}

Check timingQuantum(const Inputs& in, bool* flat) {
  const char* name = "timing-quantum";
  int runs = 0;
  std::vector<std::string> spans = flatRuns(in, &runs);
  std::string mps = in.setupValue("mps");
  std::string mpsText = "MPS: " + (mps.empty() ? std::string("not recorded") : mps);
  *flat = !spans.empty();
  if (runs == 0) return make(name, CheckStatus::kFail, "no nccl-tests table in OUT/sweep to time");
  if (*flat) {
    return make(name, CheckStatus::kRefused,
                "performance verdicts refused: " + std::to_string(spans.size()) + " of " + std::to_string(runs) +
                    " runs took one time at every size (" + spans.front().substr(spans.front().find(": ") + 2) +
                    "), a time-sliced or saturated device's wait for a turn, not the collective (" + mpsText + ")",
                spans);
  }
  return make(
      name, CheckStatus::kPass,
      "times grow with the size in all " + std::to_string(runs) + " runs; performance verdicts hold (" + mpsText + ")");
}

// --- divergent-vs-default ----------------------------------------------------------------------------------------

Check divergentVersusDefault(const Inputs& in, bool flat) {
  const char* name = "divergent-vs-default";
  const Configuration* own = in.sweep.find("default");
  const Configuration* run = in.sweep.policyRun();
  if (own == nullptr || run == nullptr)
    return make(name, CheckStatus::kFail, "no default and policy runs in OUT/sweep");
  sweep::CompareOptions options;
  sweep::Comparison c = sweep::compareSweeps(sweep::collectSamples(own->tables, options.placement),
                                             sweep::collectSamples(run->tables, options.placement), options);
  c.labelA = own->label;
  c.labelB = run->label;
  std::vector<std::string> details = sweep::degenerateNotes(c, sweep::configurationsOf(own->tables, own->nccl),
                                                            sweep::configurationsOf(run->tables, run->nccl));
  if (c.series.empty()) return make(name, CheckStatus::kFail, "no series measured on both sides", details);
  const verdicts::RangeComparison& range = c.series.front().result.range;
  std::string verdict = range.verdict == sweep::Verdict::kInsufficient
                            ? "no verdict: " + range.whyNoInterval
                            : sweep::describeRatio(range.interval->ratio, range.verdict);
  std::string summary = run->label + " against " + own->label + " over " + formatByteSize(range.lo) + "-" +
                        formatByteSize(range.hi) + ": " + verdict;
  if (flat)
    return make(name, CheckStatus::kRefused, "refused, the times are flat (recorded only: " + summary + ")", details);
  if (range.verdict == sweep::Verdict::kInsufficient) return make(name, CheckStatus::kFail, summary, details);
  return make(name, CheckStatus::kPass, summary, details);
}

// --- switchback --------------------------------------------------------------------------------------------------

Check switchback(const Inputs& in, bool flat) {
  const char* name = "switchback";
  if (in.switchback.stats.empty()) {
    return make(name, CheckStatus::kFail, "no statistics files of a switchback run in OUT/switchback");
  }
  fleet::FleetReader reader;
  for (size_t i = 0; i < in.switchback.stats.size(); ++i) {
    Status s = reader.add(in.switchback.stats[i].first, in.switchback.statsTexts[i]);
    if (!s.isOk()) return make(name, CheckStatus::kFail, s.message());
  }
  StatusOr<fleet::Fleet> fleet = reader.assemble();
  StatusOr<fleet::AbReport> report = fleet.isOk() ? fleet::compareArms(*fleet, fleet::AbOptions{}) : fleet.status();
  if (!report.isOk()) return make(name, CheckStatus::kFail, report.status().message());
  std::vector<std::string> details = report->notes;
  details.insert(details.end(), report->errors.begin(), report->errors.end());
  if (report->design != "switchback" || report->comparisons.empty()) {
    return make(
        name, CheckStatus::kFail,
        "experiment '" + report->experiment + "' was not compared as a switchback (design " + report->design + ")",
        details);
  }
  std::string summary = "experiment '" + report->experiment + "', one communicator in turns:";
  bool insufficient = false;
  for (const fleet::ArmComparison& arm : report->comparisons) {
    const verdicts::RangeComparison& r = arm.summary;
    insufficient |= r.verdict == verdicts::Verdict::kInsufficient;
    summary += " arm '" + arm.arm + "' against '" + report->control + "' (" +
               telemetry::collectiveName(arm.collective) + "): " +
               (r.verdict == verdicts::Verdict::kInsufficient ? "no verdict, " + r.whyNoInterval
                                                              : sweep::describeRatio(r.interval->ratio, r.verdict)) +
               ";";
  }
  summary.pop_back();
  if (flat)
    return make(name, CheckStatus::kRefused, "refused, the times are flat (recorded only: " + summary + ")", details);
  return make(name, insufficient ? CheckStatus::kFail : CheckStatus::kPass, summary, details);
}

}  // namespace

const char* statusName(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kRefused:
      return "refused";
  }
  return "fail";
}

std::vector<Check> runChecks(const Inputs& in) {
  std::vector<Check> out;
  out.push_back(pluginsLoaded(in));
  out.push_back(policyObeyed(in));
  out.push_back(countsOf("timed-collectives", {&in.sweep, &in.switchback}, false));
  out.push_back(countsOf("graph-replays", {&in.graph}, true));
  bool flat = false;
  out.push_back(timingQuantum(in, &flat));
  out.push_back(divergentVersusDefault(in, flat));
  out.push_back(switchback(in, flat));
  return out;
}

}  // namespace nccl_roce::cli::proof
