#include "inspect/policy_verify.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "common/strings.h"
#include "tuner/compiled_policy.h"
#include "tuner/decide.h"
#include "tuner/experiment.h"

namespace nccl_roce::inspect {

namespace {

// One collective as the log shows it: a TUNING line (no pipeOps or regBuff), or a tuner call of NCCL 2.31.2's log
// (exactly what the tuner was asked, the entries NCCL's mask allowed, and what NCCL then chose).
struct Observed {
  int collective = -1;
  uint64_t bytes = 0;  // as the tuner is asked
  std::optional<int> pipeOps, regBuff;
  uint64_t generalMask = ~uint64_t{0};  // bit algorithm * 3 + protocol: the entries NCCL considered
  int algorithm = -1, protocol = -1, channels = 0;

  static Observed of(const NcclTuningLine& t, int nRanks) {
    Observed o;
    o.collective = t.collective;
    o.bytes = t.tunerBytes(nRanks);
    o.algorithm = t.algorithm;
    o.protocol = t.protocol;
    o.channels = t.channels();
    return o;
  }
  static Observed of(const NcclTunerCall& c) {
    return {c.collective, c.bytes, c.pipeOps, c.regBuff, c.tuningMask, c.algorithm, c.protocol, c.channels};
  }
};

std::string where(const NcclProcessLog& p, const std::string& file) {
  return p.host + ":" + std::to_string(p.pid) + " (" + file + ")";
}

std::string choiceText(int algorithm, int protocol) {
  return std::string(telemetry::algorithmName(algorithm)) + "/" + telemetry::protocolName(protocol);
}

// A communicator of one process: NCCL's line for it and our tuner's, when there is one.
struct Communicator {
  const NcclCommunicatorLine* nccl = nullptr;
  const RoceTunerLine* tuner = nullptr;
};

// Our tuner logs its line right after NCCL's "comm .. nRanks" line of the same communicator (the profiler's and
// the tuner's inits follow it, src/init.cc): each tuner line goes with the latest communicator before it.
std::vector<Communicator> communicatorsOf(const NcclProcessLog& p) {
  std::vector<Communicator> out;
  for (const NcclCommunicatorLine& c : p.communicators) out.push_back({&c, nullptr});
  for (const RoceTunerLine& t : p.roceTuners) {
    for (auto it = out.rbegin(); it != out.rend(); ++it) {
      if (it->nccl->line < t.line) {
        if (it->tuner == nullptr) it->tuner = &t;
        break;
      }
    }
  }
  return out;
}

// What decides a communicator's calls under `active`, and whether that can be known.
struct Decider {
  std::shared_ptr<const policy::Policy> policy;  // null: NCCL decides everything
  std::string unknown;                           // non-empty: why the policy of this communicator is not known
};

Decider deciderFor(const policy::ActivePolicy& active, const Communicator& c) {
  const auto& experiment = active.experiment();
  if (experiment && experiment->design == policy::ExperimentDesign::kSwitchback) {
    return {nullptr, "experiment '" + experiment->name + "' is a switchback: its arm changes every " +
                         std::to_string(experiment->switchback.block) +
                         " tuner calls, and NCCL's TUNING lines do not say which call each was"};
  }
  if (experiment && c.tuner == nullptr) {
    return {nullptr, "experiment '" + experiment->name +
                         "' gives each communicator an arm by its id, and this communicator has no line of our tuner "
                         "to take the id from"};
  }
  return {tuner::assignPolicy(active, c.tuner ? c.tuner->commId : 0).policy, ""};
}

// Which communicator printed a TUNING line: the one its line names, else the only rank-0 communicator of the
// process so far (or several that decide alike).
const Communicator* communicatorOf(const std::vector<Communicator>& comms, const NcclTuningLine& t,
                                   const policy::ActivePolicy& active, std::string* why) {
  const Communicator* found = nullptr;
  std::vector<const Communicator*> rankZero;
  for (const Communicator& c : comms) {
    if (c.nccl->line > t.line) break;
    if (t.comm != 0 && c.nccl->comm == t.comm) found = &c;
    if (c.nccl->rank == 0) rankZero.push_back(&c);
  }
  if (t.comm != 0) {
    if (found == nullptr)
      *why = "the line names communicator " + formatHexId(t.comm) + ", whose init line is not in the log";
    return found;
  }
  if (rankZero.empty()) {
    *why = "no 'comm .. rank 0 nRanks .. nNodes ..' line before it in its process (NCCL_DEBUG_SUBSYS needs INIT)";
    return nullptr;
  }
  const Communicator* last = rankZero.back();
  for (const Communicator* c : rankZero) {
    bool alike = c->nccl->nRanks == last->nccl->nRanks && c->nccl->nNodes == last->nccl->nNodes &&
                 deciderFor(active, *c).policy == deciderFor(active, *last).policy &&
                 c->nccl->availability.has_value() == last->nccl->availability.has_value() &&
                 (!c->nccl->availability || c->nccl->availability->offered == last->nccl->availability->offered);
    if (!alike) {
      *why = std::to_string(rankZero.size()) +
             " communicators of this process decide differently, and NCCL's TUNING line does not say which it is";
      return nullptr;
    }
  }
  return last;
}

// NCCL's cost table as the tuner would see it for this call, from what the log says: the entries NCCL's printed table
// offers (all of them when the log has no table), and the entry NCCL ran the cheapest among them, as it was for
// NCCL (or for our tuner, when a rule let it pick NCCL's cheapest for a wildcard).
struct LoggedTable {
  float entries[telemetry::kMaxAlgorithms * telemetry::kNumProtocols];
  tuner::CostTable table{entries, telemetry::kMaxAlgorithms, telemetry::kNumProtocols};

  LoggedTable(const NcclCommunicatorLine& comm, const Observed& o) {
    for (int a = 0; a < telemetry::kMaxAlgorithms; ++a) {
      for (int p = 0; p < telemetry::kNumProtocols; ++p) {
        bool offered = (!comm.availability || comm.availability->offers(o.collective, a, p)) &&
                       (o.generalMask >> (a * telemetry::kNumProtocols + p) & 1) != 0;
        table.at(a, p) = offered ? 1.0f : -1.0f;
      }
    }
    if (table.available(o.algorithm, o.protocol)) table.at(o.algorithm, o.protocol) = 0.5f;
  }
};

// Whether the rule that decides depends on what the log does not show: a rule selecting on pipe_ops or reg_buff
// before the first rule that matches every call of this size.
bool selectsOnUnlogged(const tuner::CompiledPolicy& compiled, int collective, uint64_t bytes) {
  tuner::RuleIndices candidates = compiled.candidates(collective, bytes);
  if (candidates.size() == 0) return false;
  // The first candidate decides, unless it selects on what the log does not show.
  const policy::Rule& first = compiled.rule(*candidates.begin());
  return !first.pipeOps.isAll() || first.regBuff.has_value();
}

std::string describeChoice(const policy::Choice& c) {
  if (c.algorithm >= 0 && c.protocol >= 0) return choiceText(c.algorithm, c.protocol);
  if (c.algorithm >= 0) return std::string(telemetry::algorithmName(c.algorithm)) + " with NCCL's cheapest protocol";
  return std::string(telemetry::protocolName(c.protocol)) + " on NCCL's cheapest algorithm offering it";
}

// The preference of `rule` that the decision took: the first that admits its algorithm and protocol.
const policy::Choice* choiceTaken(const policy::Rule& rule, const tuner::Decision& d) {
  for (const policy::Choice& c : rule.choices) {
    if ((c.algorithm < 0 || c.algorithm == d.algorithm) && (c.protocol < 0 || c.protocol == d.protocol)) return &c;
  }
  return nullptr;
}

std::string channelsText(int channels) {
  return channels > 0 ? " on at most " + std::to_string(channels) + (channels == 1 ? " channel" : " channels") : "";
}

// One TUNING line judged: the cell's fields that depend on the decision, and this line's verdict.
struct Judgement {
  int rule = -1;
  std::string ruleName;
  int ruleLine = 0;
  int algorithm = -1, protocol = -1, channels = 0;
  std::string forced;
  telemetry::ChunkSize chunk;
  VerifyStatus status = VerifyStatus::kNccl;
  std::string why;
};

Judgement judge(const tuner::CompiledPolicy& compiled, const NcclCommunicatorLine& comm, const Observed& t) {
  Judgement j;
  const uint64_t bytes = t.bytes;
  if (!t.pipeOps && selectsOnUnlogged(compiled, t.collective, bytes)) {
    j.status = VerifyStatus::kUnchecked;
    j.why = "a rule for this size selects on pipe_ops or reg_buff, which NCCL's TUNING line does not show";
    return j;
  }
  LoggedTable logged(comm, t);
  tuner::Decision d =
      tuner::decide(compiled, {t.collective, bytes, t.pipeOps.value_or(1), t.regBuff.value_or(0)}, logged.table);
  j.rule = d.rule;
  if (d.rule < 0 || d.outcome == tuner::Decision::Outcome::kNoRule) return j;
  const policy::Rule& rule = compiled.rule(static_cast<uint32_t>(d.rule));
  j.ruleName = rule.name;
  j.ruleLine = rule.position.line;
  switch (d.outcome) {
    case tuner::Decision::Outcome::kNoRule:
    case tuner::Decision::Outcome::kPassThrough:
      j.forced = "NCCL's own choice (the rule keeps it)";
      return j;
    case tuner::Decision::Outcome::kUnavailable: {
      std::string preferences;
      for (const policy::Choice& c : rule.choices) preferences += (preferences.empty() ? "" : ", ") + describeChoice(c);
      j.forced = preferences;
      j.status = VerifyStatus::kUnavailable;
      j.why = comm.availability ? "NCCL's table (line " + std::to_string(comm.availability->line) +
                                      ") offers none of its preferences, so NCCL chose"
                                : "none of its preferences was available, so NCCL chose";
      return j;
    }
    case tuner::Decision::Outcome::kSettingsOnly:
      j.forced = "NCCL's algorithm and protocol";
      break;
    case tuner::Decision::Outcome::kChosen: {
      j.algorithm = d.algorithm;
      j.protocol = d.protocol;
      const policy::Choice* taken = choiceTaken(rule, d);
      j.forced = taken ? describeChoice(*taken) : choiceText(d.algorithm, d.protocol);
      if (taken != nullptr && taken != &rule.choices.front()) {
        j.forced += " (its first preference, " + describeChoice(rule.choices.front()) + ", is not offered)";
      }
      j.chunk = rule.chunkSizes.forProtocol(d.protocol);
      break;
    }
  }
  j.channels = d.channels;
  j.forced += channelsText(d.channels);
  bool choiceRan =
      d.outcome != tuner::Decision::Outcome::kChosen || (t.algorithm == d.algorithm && t.protocol == d.protocol);
  bool channelsRan = d.channels == 0 || t.channels <= d.channels;
  j.status = choiceRan && channelsRan ? VerifyStatus::kMatch : VerifyStatus::kMismatch;
  if (choiceRan && !channelsRan) {
    j.why = "NCCL ran it on " + std::to_string(t.channels) + " channels, more than the rule's " +
            std::to_string(d.channels);
  }
  return j;
}

int severity(VerifyStatus s) {
  switch (s) {
    case VerifyStatus::kNccl:
      return 0;
    case VerifyStatus::kUnavailable:
      return 1;
    case VerifyStatus::kMatch:
      return 2;
    case VerifyStatus::kUnchecked:
      return 3;
    case VerifyStatus::kMismatch:
      return 4;
  }
  return 0;
}

using CellKey = std::tuple<std::string, int, int, int, uint64_t>;  // policy, ranks, nodes, collective, bytes

struct Verifier {
  const policy::ActivePolicy& active;
  VerifyReport report;
  std::map<CellKey, VerifiedCell> cells;
  std::map<std::tuple<const policy::Policy*, int, int>, std::unique_ptr<tuner::CompiledPolicy>> compiled;

  const tuner::CompiledPolicy& compile(const std::shared_ptr<const policy::Policy>& p, int nRanks, int nNodes) {
    auto& slot = compiled[{p.get(), nRanks, nNodes}];
    if (!slot) slot = std::make_unique<tuner::CompiledPolicy>(p, nRanks, nNodes);
    return *slot;
  }

  // Why NCCL may not have run what a rule forces in this process: what the log shows of its tuner.
  static std::string causeIn(const NcclProcessLog& p, const Communicator& c, const std::string& expectedDigest) {
    if (p.tunerPlugin.empty()) return "NCCL loaded no tuner plugin in this process (no 'TUNER/Plugin: Using' line)";
    if (p.tunerPlugin != "nccl-roce") return "NCCL loaded the tuner '" + p.tunerPlugin + "', not nccl-roce";
    if (c.tuner == nullptr) return "nccl-roce's tuner logged no 'uses policy' line for this communicator";
    if (!c.tuner->digest.empty() && c.tuner->digest != expectedDigest) {
      return "the communicator ran policy '" + c.tuner->policy + "' (" + c.tuner->digest + "), not this one";
    }
    return "nccl-roce's tuner decided with this policy; NCCL ran something else";
  }

  void checkProcess(const NcclProcessLog& p, const std::string& file, const std::vector<Communicator>& comms) {
    if (p.communicators.empty()) return;
    if (p.tunerPlugin.empty()) {
      report.problems.push_back(where(p, file) +
                                ": NCCL loaded no tuner plugin (no 'TUNER/Plugin: Using' line), so its choices are "
                                "its own; set NCCL_TUNER_PLUGIN=roce");
    } else if (p.tunerPlugin != "nccl-roce") {
      report.problems.push_back(where(p, file) + ": NCCL loaded the tuner '" + p.tunerPlugin + "', not nccl-roce");
    }
    for (const std::string& w : p.roceTunerWarnings) report.problems.push_back(where(p, file) + ": " + w);
    const auto& experiment = active.experiment();
    for (const Communicator& c : comms) {
      if (c.tuner == nullptr) continue;
      const std::string name = formatHexId(c.tuner->commId);
      if (experiment) {
        if (c.tuner->experimentDigest != active.digest()) {
          report.problems.push_back(where(p, file) + ": comm " + name + " ran experiment '" + c.tuner->experiment +
                                    "' (" + c.tuner->experimentDigest + "), not '" + experiment->name + "' (" +
                                    active.digest() + ")");
        }
        continue;
      }
      if (c.tuner->digest != active.digest()) {
        report.problems.push_back(where(p, file) + ": comm " + name + " ran policy '" + c.tuner->policy + "' (" +
                                  c.tuner->digest + "), not '" + report.policyName + "' (" + active.digest() + ")");
      }
    }
  }

  void add(const CellKey& key, const Observed& t, const Judgement& j, const std::string& example) {
    auto [it, fresh] = cells.try_emplace(key);
    VerifiedCell& cell = it->second;
    if (fresh) {
      std::tie(cell.policy, cell.nRanks, cell.nNodes, cell.collective, cell.bytes) = key;
      cell.status = j.status;
      cell.why = j.why;
    } else if (severity(j.status) > severity(cell.status)) {
      cell.status = j.status;
      cell.why = j.why;
    }
    if (fresh || (cell.rule < 0 && j.rule >= 0)) {
      cell.rule = j.rule;
      cell.ruleName = j.ruleName;
      cell.ruleLine = j.ruleLine;
      cell.algorithm = j.algorithm;
      cell.protocol = j.protocol;
      cell.channels = j.channels;
      cell.forced = j.forced;
      cell.chunk = j.chunk;
    }
    RanConfig ran{t.algorithm, t.protocol, t.channels, 0, example};
    auto found =
        std::find_if(cell.ran.begin(), cell.ran.end(), [&](const RanConfig& r) { return !(r < ran) && !(ran < r); });
    if (found == cell.ran.end()) found = cell.ran.insert(cell.ran.end(), ran);
    ++found->calls;
  }

  void verifyProcess(const NcclProcessLog& p, const std::string& file) {
    std::vector<Communicator> comms = communicatorsOf(p);
    checkProcess(p, file, comms);
    VerifiedProcess seen{file, p.host, p.pid, p.ncclVersion, p.tunerPlugin, {}, p.tuning.size()};
    for (const NcclTunerCall& call : p.tunerCalls) seen.tunerCalls += call.algorithm >= 0;
    for (const Communicator& c : comms) {
      if (c.tuner == nullptr) continue;
      seen.policies.push_back(c.tuner->switchback
                                  ? "switchback '" + c.tuner->experiment + "' (" + c.tuner->experimentDigest + ")"
                                  : "'" + c.tuner->policy + "' (" + c.tuner->digest + ")");
    }
    report.processes.push_back(seen);
    report.calls += p.tuning.size();
    report.tunerCalls += seen.tunerCalls;
    if (seen.tunerCalls > 0) {
      verifyTunerCalls(p, file, comms);  // what NCCL 2.31.2 logs of each call says more than its TUNING lines
      return;
    }
    for (const NcclTuningLine& t : p.tuning) {
      const std::string example = file + ":" + std::to_string(t.line);
      std::string why;
      const Communicator* c = communicatorOf(comms, t, active, &why);
      if (c == nullptr) {
        Judgement j;
        j.status = VerifyStatus::kUnchecked;
        j.why = why;
        add({"?", 0, 0, t.collective, t.bytes}, Observed::of(t, 0), j, example);
        continue;
      }
      judgeIn(p, *c, Observed::of(t, c->nccl->nRanks), example);
    }
  }

  // One observed collective of communicator `c`, into its cell.
  void judgeIn(const NcclProcessLog& p, const Communicator& c, const Observed& o, const std::string& example) {
    Decider decider = deciderFor(active, c);
    const NcclCommunicatorLine& comm = *c.nccl;
    std::string policyName = decider.policy ? decider.policy->name : "nccl";
    CellKey key{policyName, comm.nRanks, comm.nNodes, o.collective, o.bytes};
    Judgement j;
    if (!decider.unknown.empty()) {
      j.status = VerifyStatus::kUnchecked;
      j.why = decider.unknown;
    } else if (decider.policy) {
      j = judge(compile(decider.policy, comm.nRanks, comm.nNodes), comm, o);
      if (j.status == VerifyStatus::kMismatch) {
        j.why = causeIn(p, c, decider.policy->digest) + (j.why.empty() ? "" : "; " + j.why);
      }
    }
    add(key, o, j, example);
  }

  // NCCL 2.31.2's tuner calls: every ordinary tuning of every rank, with its pipeOps and regBuff, by the
  // communicator its Input line names (tunings of the symmetric kernels name no algorithm: not the tuner's).
  void verifyTunerCalls(const NcclProcessLog& p, const std::string& file, const std::vector<Communicator>& comms) {
    for (const NcclTunerCall& call : p.tunerCalls) {
      if (call.algorithm < 0) continue;
      const std::string example = file + ":" + std::to_string(call.line);
      const Communicator* found = nullptr;
      for (const Communicator& c : comms) {
        if (c.nccl->line < call.line && c.nccl->comm == call.comm) found = &c;
      }
      if (found == nullptr) {
        Judgement j;
        j.status = VerifyStatus::kUnchecked;
        j.why = "the tuning names communicator " + formatHexId(call.comm) + ", whose init line is not in the log";
        add({"?", 0, 0, call.collective, call.bytes}, Observed::of(call), j, example);
        continue;
      }
      judgeIn(p, *found, Observed::of(call), example);
    }
  }
};

}  // namespace

const char* verifyStatusName(VerifyStatus status) {
  switch (status) {
    case VerifyStatus::kMatch:
      return "match";
    case VerifyStatus::kMismatch:
      return "mismatch";
    case VerifyStatus::kNccl:
      return "nccl";
    case VerifyStatus::kUnavailable:
      return "unavailable";
    case VerifyStatus::kUnchecked:
      return "unchecked";
  }
  return "unknown";
}

bool RanConfig::operator<(const RanConfig& o) const {
  return std::tie(algorithm, protocol, channels) < std::tie(o.algorithm, o.protocol, o.channels);
}

int VerifyReport::count(VerifyStatus status) const {
  return static_cast<int>(
      std::count_if(cells.begin(), cells.end(), [&](const VerifiedCell& c) { return c.status == status; }));
}

VerifyReport verifyPolicy(const policy::ActivePolicy& active, const std::vector<NcclInfoLog>& logs) {
  Verifier v{active, {}, {}, {}};
  if (active.experiment()) {
    v.report.policyName = active.experiment()->name;
    v.report.policySource = active.experiment()->source;
  } else if (active.policy()) {
    v.report.policyName = active.policy()->name;
    v.report.policySource = active.policy()->source;
  }
  v.report.policyDigest = active.digest();
  if (!active.error().empty()) v.report.problems.push_back("the policy is unusable: " + active.error());
  for (const NcclInfoLog& log : logs) {
    for (const NcclProcessLog& p : log.processes) v.verifyProcess(p, log.source);
    if (log.olderTuningLines > 0) {
      v.report.problems.push_back(log.source + ": " + std::to_string(log.olderTuningLines) +
                                  " TUNING line(s) in NCCL 2.23's form (numbers for names, no channels), which verify "
                                  "does not read: it needs NCCL 2.24 or later");
    }
    if (log.malformedTuningLines > 0) {
      v.report.problems.push_back(log.source + ": " + std::to_string(log.malformedTuningLines) +
                                  " TUNING line(s) cut short or garbled");
    }
  }
  if (v.report.calls == 0 && v.report.tunerCalls == 0) {
    v.report.problems.push_back(
        "no NCCL TUNING line in the logs: run with NCCL_DEBUG=INFO and TUNING in NCCL_DEBUG_SUBSYS, and give the "
        "log of rank 0 (NCCL prints them there only)");
  }
  for (auto& [key, cell] : v.cells) {
    std::sort(cell.ran.begin(), cell.ran.end());
    v.report.cells.push_back(std::move(cell));
  }
  return v.report;
}

}  // namespace nccl_roce::inspect

namespace nccl_roce::inspect {

namespace {

std::string ranText(const RanConfig& r) {
  return choiceText(r.algorithm, r.protocol) + " on " + std::to_string(r.channels) +
         (r.channels == 1 ? " channel" : " channels") + " (" + std::to_string(r.calls) +
         (r.calls == 1 ? " call)" : " calls)");
}

std::string ruleText(const VerifiedCell& c) {
  std::string out = "rule line " + std::to_string(c.ruleLine);
  return c.ruleName.empty() ? out : out + " '" + c.ruleName + "'";
}

// "4K", "1M"; "416 B" where no unit divides the size.
std::string sizeText(uint64_t bytes) {
  std::string text = formatByteSize(bytes);
  return text.find_first_not_of("0123456789") == std::string::npos ? text + " B" : text;
}

std::string cellLine(const VerifiedCell& c) {
  std::string out = "  " + sizeText(c.bytes) + ": ";
  if (c.rule < 0) {
    out += "no rule";
  } else {
    out += ruleText(c) + " forces " + c.forced;
    if (!c.chunk.isNccl()) out += ", chunk size " + telemetry::describeChunkSize(c.chunk) + " (not in the log)";
  }
  out += "; NCCL ran ";
  for (size_t i = 0; i < c.ran.size(); ++i) out += (i ? ", " : "") + ranText(c.ran[i]);
  switch (c.status) {
    case VerifyStatus::kMatch:
      return out + ": match\n";
    case VerifyStatus::kNccl:
      return out + ": NCCL's own\n";
    case VerifyStatus::kUnavailable:
      return out + ": NCCL's own, " + c.why + "\n";
    case VerifyStatus::kUnchecked:
      return out + ": unchecked, " + c.why + "\n";
    case VerifyStatus::kMismatch:
      break;
  }
  const RanConfig* first = &c.ran.front();
  for (const RanConfig& r : c.ran) {
    bool otherChoice = c.algorithm >= 0 && (r.algorithm != c.algorithm || r.protocol != c.protocol);
    if (otherChoice || (c.channels > 0 && r.channels > c.channels)) {
      first = &r;
      break;
    }
  }
  return out + ": MISMATCH: " + c.why + " (first: " + first->example + ")\n";
}

}  // namespace

std::string verifyReportText(const VerifyReport& r) {
  std::string out = "policy: " + r.policyName + " (" + r.policySource + ", " + r.policyDigest + ")\n";
  for (const VerifiedProcess& p : r.processes) {
    if (p.tuningLines == 0 && p.tunerCalls == 0) continue;
    out += "process " + p.host + ":" + std::to_string(p.pid) + " (" + p.file + "): NCCL " +
           (p.ncclVersion.empty() ? "?" : p.ncclVersion) + ", tuner " +
           (p.tunerPlugin.empty() ? "none" : p.tunerPlugin) + ", " + std::to_string(p.tuningLines) + " TUNING lines";
    if (p.tunerCalls > 0) out += ", " + std::to_string(p.tunerCalls) + " tuner calls (checked instead)";
    for (const std::string& policy : p.policies) out += ", policy " + policy;
    out += "\n";
  }
  std::string heading;
  for (const VerifiedCell& c : r.cells) {
    std::string h = std::string(telemetry::collectiveName(c.collective)) + " on " + std::to_string(c.nRanks) +
                    " ranks / " + std::to_string(c.nNodes) + " nodes, policy " + c.policy + ":\n";
    if (c.nRanks == 0) h = std::string(telemetry::collectiveName(c.collective)) + ", communicator unknown:\n";
    if (h != heading) out += heading = h;
    out += cellLine(c);
  }
  for (const std::string& p : r.problems) out += "problem: " + p + "\n";
  out +=
      "verdict: " + std::to_string(r.count(VerifyStatus::kMatch)) + " sizes match, " +
      std::to_string(r.count(VerifyStatus::kMismatch)) + " mismatch, " + std::to_string(r.count(VerifyStatus::kNccl)) +
      " NCCL's own, " + std::to_string(r.count(VerifyStatus::kUnavailable)) + " unavailable, " +
      std::to_string(r.count(VerifyStatus::kUnchecked)) + " unchecked (" + std::to_string(r.calls) + " TUNING lines): ";
  if (r.ok()) {
    return out + (r.count(VerifyStatus::kMatch) > 0 ? "NCCL ran what the policy decides\n"
                                                    : "no rule of the policy fired; nothing was forced\n");
  }
  return out + "NCCL did not run what the policy decides\n";
}

}  // namespace nccl_roce::inspect
