#include "fleet/ab_fit_policy_text.h"

#include <limits>

#include "common/log.h"
#include "common/strings.h"
#include "policy/rule_text.h"
#include "policy/value_range_text.h"
#include "telemetry/chunk_size.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::fleet {

namespace {

policy::ValueRange bucketBytes(int first, int last) {
  uint64_t lo = first == 0 ? 0 : uint64_t{1} << first;
  uint64_t hi = last >= 63 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << (last + 1)) - 1;
  return policy::ValueRange{lo, hi};
}

std::string sizeText(const policy::ValueRange& bytes) {
  return policy::formatValueRange(bytes, policy::RangeUnit::kBytes);
}

std::string where(int nodes, int collective) {
  return policy::policyCollectiveName(collective) + " on " + std::to_string(nodes) + (nodes == 1 ? " node" : " nodes");
}

// Per node count and collective, the measured buckets no arm won, neighbours joined: "512K..16M, 64M..128M".
std::vector<std::string> unchanged(const AbFit& fit) {
  std::vector<std::string> lines;
  std::string line;
  int nodes = -1, collective = -1, first = -1, last = -1;
  auto flush = [&] {
    if (first >= 0) line += (line.empty() ? "" : ", ") + sizeText(bucketBytes(first, last));
    first = last = -1;
  };
  for (const CellFit& cf : fit.cells) {
    int c = collectiveOfCell(cf.cell), bucket = bucketOfCell(cf.cell);
    if (cf.nodes != nodes || c != collective) {
      flush();
      if (!line.empty()) lines.push_back(where(nodes, collective) + ": " + line);
      line.clear();
      nodes = cf.nodes;
      collective = c;
    }
    // A winner whose configuration cannot be a rule is not "no change": the notes say what it was.
    if (cf.winner || bucket != last + 1) flush();
    if (cf.winner) continue;
    if (first < 0) first = bucket;
    last = bucket;
  }
  flush();
  if (!line.empty()) lines.push_back(where(nodes, collective) + ": " + line);
  return lines;
}

std::string header(const AbFit& fit) {
  const verdicts::Settings& st = fit.options.settings;
  std::string experiment = policy::tomlCommentText(fit.experiment);  // names from the statistics files
  std::string out = "# Fitted by `nccl-roce ab fit` from the fleet statistics of " +
                    (experiment.empty() ? std::string("an experiment") : "experiment '" + experiment + "'") +
                    " (control arm '" + policy::tomlCommentText(fit.control) + "').\n";
  out += format(
      "# Per node count, collective and size bucket: the arm whose communicators ran faster than the\n"
      "# control's beyond the noise and by at least %.1f%%, written as the configuration that arm's tuner\n"
      "# ran there. Where no arm did, there is no rule and NCCL decides.\n",
      st.minEffect * 100);
  const std::string falseWins = format(
      "false wins held to an expected %.0f%% of the rules\n"
      "# over all %d arm x bucket challenges of this fit (Benjamini-Hochberg false discovery rate).\n"
      "# Intervals below are two-sided at %.0f%%.\n",
      (1 - st.confidence) * 100, fit.challenges, st.confidence * 100);
  if (fit.design == "switchback") {
    out += format(
        "# Beyond the noise: a paired t on log times, with a window inside a communicator as the unit\n"
        "# (every communicator ran every arm in turns; at least %d windows per arm and bucket);\n# ",
        st.minUnits);
  } else {
    out += format(
        "# Beyond the noise: Welch t on log times, on the smaller side's degrees of freedom, with the\n"
        "# communicator as the unit (at least %d of the arm and %d of the control per bucket, each with %llu\n"
        "# or more collectives there); ",
        st.minUnits, st.minUnits, static_cast<unsigned long long>(fit.options.minCollectives));
  }
  out += falseWins;
  out += "# Rules cover the measured buckets and node counts only: other sizes and node counts stay with NCCL.\n";
  std::vector<std::string> same = unchanged(fit);
  if (same.empty()) out += "# No change: none (an arm beat the control in every measured bucket).\n";
  for (const std::string& line : same) out += "# No change (no arm beat the control): " + line + ".\n";
  for (const SkippedInput& s : fit.skipped) {
    out += "# Skipped: " + policy::tomlCommentText(s.file + ": " + s.why) + ".\n";
  }
  for (const std::string& note : fit.notes) out += "# Note: " + policy::tomlCommentText(note) + ".\n";
  return out;
}

std::string evidence(const AbFit& fit, const FittedRule& rule) {
  std::string out = "\n# " + policy::tomlCommentText(rule.arm) + " for " + where(rule.nodes, rule.collective) + ", " +
                    sizeText(fittedRuleBytes(rule)) + ": " + rule.configuration.describe() + " (its rule \"" +
                    policy::tomlCommentText(rule.configuration.rule) + "\").\n";
  out += format(
      "# Per bucket: %s control/arm, collectives control/arm, ratio arm/control [%.0f%% "
      "interval],\n# share of the arm's calls its rule decided so\n",
      fit.design == "switchback" ? "windows" : "communicators", fit.options.settings.confidence * 100);
  for (size_t i : rule.cells) {
    const CellFit& cf = fit.cells[i];
    const ArmChallenge& w = cf.challenges[*cf.winner];
    out +=
        format("#   %s: %d/%d, %llu/%llu, %.3f [%.3f, %.3f], %.0f%%\n",
               telemetry::bucketLabel(bucketOfCell(cf.cell)).c_str(), w.vsControl.nA, w.vsControl.nB,
               static_cast<unsigned long long>(w.collectivesControl), static_cast<unsigned long long>(w.collectivesArm),
               w.vsControl.ratio, w.vsControl.low, w.vsControl.high, w.configuration->share * 100);
  }
  return out;
}

}  // namespace

policy::ValueRange fittedRuleBytes(const FittedRule& rule) {
  return bucketBytes(rule.firstBucket, rule.lastBucket);
}

std::string fittedRuleName(const FittedRule& rule) {
  return "ab-" + policy::policyCollectiveName(rule.collective) + "-" + std::to_string(rule.nodes) + "n" +
         policy::choiceNameSuffix(rule.configuration.choice) + "-" + sizeText(fittedRuleBytes(rule));
}

std::string abFitPolicyToml(const AbFit& fit) {
  std::string out = header(fit);
  std::string communicators;
  for (const auto& [arm, n] : fit.communicatorsPerArm) {
    communicators += (communicators.empty() ? "" : ", ") + arm + " " + std::to_string(n);
  }
  out += "[policy]\nname = " + policy::tomlString(fit.policyName) + "\n";
  out += "description = " +
         policy::tomlString(format("Fitted by nccl-roce ab fit from experiment '%s': %zu rule(s) from %d challenges; "
                                   "communicators %s",
                                   fit.experiment.c_str(), fit.rules.size(), fit.challenges, communicators.c_str())) +
         "\n";
  for (const FittedRule& rule : fit.rules) {
    out += evidence(fit, rule);
    policy::RuleText text;
    text.name = fittedRuleName(rule);
    text.collective = policy::policyCollectiveName(rule.collective);
    text.bytes = fittedRuleBytes(rule);
    text.nodes = rule.nodes;
    const telemetry::Choice& choice = rule.configuration.choice;
    text.algorithm = choice.algorithm;
    text.protocol = choice.protocol;
    text.channels = choice.channels;
    // The chunk size ran with the protocol the decisions name (a rule states it, so one value is enough).
    if (choice.protocol >= 0) text.chunkSizes.byProtocol[choice.protocol] = choice.chunk();
    out += policy::formatRule(text);
  }
  return out;
}

}  // namespace nccl_roce::fleet
