#include "fleet/ab_fit_report.h"

#include "common/log.h"
#include "common/strings.h"
#include "fleet/ab_fit_policy_text.h"
#include "policy/value_range_text.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::fleet {

namespace {

using nlohmann::ordered_json;

// What became of a challenge: the rule it gave, a win that cannot be a rule, or nothing.
std::string outcome(const CellFit& cf, size_t challenge) {
  if (!cf.winner || *cf.winner != challenge) return "";
  const ArmChallenge& w = cf.challenges[challenge];
  return w.configuration ? "**rule**" : "won; no rule: " + w.whyNoConfiguration;
}

std::string ran(const ArmChallenge& c) {
  return c.configuration ? c.configuration->describe() + format(" (%.0f%%)", c.configuration->share * 100)
                         : "- (" + c.whyNoConfiguration + ")";
}

// "algorithm", "protocol" (null: left to NCCL) and "channels" (0: NCCL decides).
void addChoice(const telemetry::Choice& c, ordered_json& j) {
  j["algorithm"] = c.algorithm >= 0 ? ordered_json(telemetry::algorithmName(c.algorithm)) : ordered_json(nullptr);
  j["protocol"] = c.protocol >= 0 ? ordered_json(telemetry::protocolName(c.protocol)) : ordered_json(nullptr);
  j["channels"] = c.channels;
}

ordered_json configurationJson(const ArmChallenge& c) {
  if (!c.configuration) return nullptr;
  const ArmConfiguration& a = *c.configuration;
  ordered_json j;
  addChoice(a.choice, j);
  j["rule"] = a.rule;
  j["share"] = a.share;
  return j;
}

ordered_json challengeJson(const ArmChallenge& c, const CellFit& cf, bool switchback) {
  ordered_json j;
  j["arm"] = c.arm;
  if (switchback) {  // every communicator ran both: the units are its windows
    j["communicators_control"] = j["communicators_arm"] = cf.communicatorsControl;
    j["windows"] = c.vsControl.nB;
  } else {
    j["communicators_control"] = c.vsControl.nA;
    j["communicators_arm"] = c.vsControl.nB;
  }
  j["collectives_control"] = c.collectivesControl;
  j["collectives_arm"] = c.collectivesArm;
  j["ratio"] = c.vsControl.ratio;
  j["low"] = c.vsControl.low;
  j["high"] = c.vsControl.high;
  j["p_faster"] = c.vsControl.pBFaster;
  j["configuration"] = configurationJson(c);
  if (!c.configuration) j["why_no_configuration"] = c.whyNoConfiguration;
  return j;
}

ordered_json ruleJson(const FittedRule& r) {
  ordered_json j;
  j["name"] = fittedRuleName(r);
  j["collective"] = telemetry::collectiveName(r.collective);
  j["nodes"] = r.nodes;
  j["size"] = policy::formatValueRange(fittedRuleBytes(r), policy::RangeUnit::kBytes);
  j["arm"] = r.arm;
  addChoice(r.configuration.choice, j);
  j["buckets"] = ordered_json::array();
  for (int b = r.firstBucket; b <= r.lastBucket; ++b) j["buckets"].push_back(telemetry::bucketLabel(b));
  return j;
}

}  // namespace

std::string abFitToMarkdown(const AbFit& fit) {
  const verdicts::Settings& st = fit.options.settings;
  std::string out = "# nccl-roce ab fit: experiment '" + fit.experiment + "' against '" + fit.control + "'\n\n";
  out += "Timed communicators per arm:";
  for (const auto& [arm, n] : fit.communicatorsPerArm) out += " " + arm + " " + std::to_string(n) + ";";
  if (fit.design == "switchback") {
    out += format(
        " switchback: every communicator ran every arm in turns; unit: a window inside a communicator, "
        "paired with '%s'; at least %d per arm and bucket.\n",
        fit.control.c_str(), st.minUnits);
  } else {
    out +=
        format(" unit: the communicator; at least %d per arm and bucket, each with %llu or more collectives there.\n",
               st.minUnits, static_cast<unsigned long long>(fit.options.minCollectives));
  }
  out += format(
      "%d challenges (arm x node count x bucket); a rule needs the arm at least %.1f%% faster with false "
      "wins held to an expected %.0f%% of the rules (Benjamini-Hochberg). Ratio = arm / control of "
      "geometric-mean durations, %.0f%% interval; p: one-sided, the arm faster.\n\n",
      fit.challenges, st.minEffect * 100, (1 - st.confidence) * 100, st.confidence * 100);
  out += format("%zu rule(s) written.\n\n", fit.rules.size());
  for (const std::string& e : fit.errors) out += "- **error**: " + e + "\n";
  for (const SkippedInput& s : fit.skipped) out += "- skipped: " + s.file + ": " + s.why + "\n";
  for (const std::string& n : fit.notes) out += "- note: " + n + "\n";
  int nodes = -1, collective = -1;
  for (const CellFit& cf : fit.cells) {
    if (cf.nodes != nodes || collectiveOfCell(cf.cell) != collective) {
      nodes = cf.nodes;
      collective = collectiveOfCell(cf.cell);
      out += format("\n## %s on %d nodes\n\n", telemetry::collectiveName(collective), nodes);
      out += std::string("| size bucket | arm | ") +
             (fit.design == "switchback" ? "windows (control / arm)" : "communicators (control / arm)") +
             " | collectives (control / arm) | ratio [interval] | p | ran | outcome "
             "|\n|---|---|---|---|---|---|---|---|\n";
    }
    for (size_t i = 0; i < cf.challenges.size(); ++i) {
      const ArmChallenge& c = cf.challenges[i];
      out += format("| %s | %s | %d / %d | %llu / %llu | %.3f [%.3f, %.3f] | %.2g | %s | %s |\n",
                    telemetry::bucketLabel(bucketOfCell(cf.cell)).c_str(), c.arm.c_str(), c.vsControl.nA,
                    c.vsControl.nB, static_cast<unsigned long long>(c.collectivesControl),
                    static_cast<unsigned long long>(c.collectivesArm), c.vsControl.ratio, c.vsControl.low,
                    c.vsControl.high, c.vsControl.pBFaster, ran(c).c_str(), outcome(cf, i).c_str());
    }
  }
  return out;
}

ordered_json abFitToJson(const AbFit& fit) {
  ordered_json j;
  j["schema"] = "nccl-roce.ab-fit/1";
  j["experiment"] = fit.experiment;
  j["design"] = fit.design.empty() ? "per-communicator" : fit.design;
  j["control"] = fit.control;
  j["policy"] = fit.policyName;
  j["confidence"] = fit.options.settings.confidence;
  j["false_discovery_rate"] = 1 - fit.options.settings.confidence;
  j["min_effect"] = fit.options.settings.minEffect;
  j["min_communicators"] = fit.options.settings.minUnits;
  j["min_collectives"] = fit.options.minCollectives;
  j["challenges"] = fit.challenges;
  j["communicators_per_arm"] = fit.communicatorsPerArm;
  j["rules"] = ordered_json::array();
  for (const FittedRule& r : fit.rules) j["rules"].push_back(ruleJson(r));
  j["cells"] = ordered_json::array();
  for (const CellFit& cf : fit.cells) {
    ordered_json c;
    c["nodes"] = cf.nodes;
    c["collective"] = telemetry::collectiveName(collectiveOfCell(cf.cell));
    c["bucket"] = telemetry::bucketLabel(bucketOfCell(cf.cell));
    c["winner"] = cf.winner ? ordered_json(cf.challenges[*cf.winner].arm) : ordered_json(nullptr);
    c["rule"] = cf.ruled();
    c["challenges"] = ordered_json::array();
    for (const ArmChallenge& ch : cf.challenges) {
      c["challenges"].push_back(challengeJson(ch, cf, fit.design == "switchback"));
    }
    j["cells"].push_back(std::move(c));
  }
  j["notes"] = fit.notes;
  j["errors"] = fit.errors;
  j["skipped_inputs"] = nlohmann::ordered_json::array();
  for (const SkippedInput& s : fit.skipped) j["skipped_inputs"].push_back({{"file", s.file}, {"why", s.why}});
  return j;
}

}  // namespace nccl_roce::fleet
