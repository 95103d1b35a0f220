#include "nccl-tests-integration/sweep/fit_policy_text.h"

#include <cstdio>

#include "common/strings.h"
#include "policy/rule_text.h"
#include "policy/value_range_text.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::sweep {

namespace {

std::string sizeRange(uint64_t lo, uint64_t hi) {
  return policy::formatValueRange(policy::ValueRange{lo, hi}, policy::RangeUnit::kBytes);
}

std::string policyCollective(const std::string& collective) {
  std::optional<int> c = telemetry::parseCollective(collective);
  return c ? policy::policyCollectiveName(*c) : collective;
}

using policy::tomlString;

std::string scale(const FitSeries& s) {
  std::string out = std::to_string(s.key.ranks) + " ranks";
  if (s.nodes > 0) out += " on " + std::to_string(s.nodes) + (s.nodes == 1 ? " node" : " nodes");
  return out;
}

std::string ruleName(const FitSeries& s, const FitBucket& b) {
  return "fit-" + policyCollective(s.key.collective) + "-" + std::to_string(s.key.ranks) + "r" +
         policy::choiceNameSuffix(b.choice->choice) + "-" + sizeRange(b.lo, b.hi);
}

std::string evidence(const FitBucket& b) {
  std::string measured =
      formatByteSize(b.firstMeasured) + (b.lastMeasured != b.firstMeasured ? "-" + formatByteSize(b.lastMeasured) : "");
  std::string out =
      "measured at " + measured + " (" + std::to_string(b.sizes) + (b.sizes == 1 ? " size" : " sizes") + "): ";
  if (!b.choice) return out + "nothing beat NCCL's default beyond the noise, so NCCL decides";
  out += formatFixed(b.bestRatio, 2) + "-" + formatFixed(b.worstRatio, 2) + "x NCCL's default time";
  out += ", upper confidence bound at most " + formatFixed(b.widestCiHigh, 2) + "x";
  return out;
}

}  // namespace

std::string fittedPolicyToml(const FitResult& fit, const FitOptions& o) {
  std::string out;
  const verdicts::Settings& st = o.verdicts;
  out += "# Fitted by `nccl-roce sweep fit` from forced-configuration nccl-tests sweeps.\n";
  out += "# Per measured size, the fastest configuration (geometric mean " + std::string(placementName(o.placement)) +
         " time over replicates) that\n# beats NCCL's default beyond the noise and by at least " +
         formatFixed(st.minEffect * 100, 1) + "%; where none does there is no rule and NCCL decides.\n";
  out += "# Beyond the noise: Welch t on log times over replicate runs, false wins held to an expected " +
         formatFixed((1 - st.confidence) * 100, 0) + "% of\n# the rules over all " + std::to_string(fit.challenges) +
         " configuration x size comparisons of this fit (Benjamini-Hochberg).\n";
  out +=
      "# Sizes between measured ones take the nearer measured size's choice (boundaries half-way); sizes below\n"
      "# the smallest and above the largest measured size take its choice. Rules match the measured scale only.\n";
  std::string collectives;
  for (const FitSeries& s : fit.series) {
    collectives += (collectives.empty() ? "" : "; ") + s.key.collective + " on " + scale(s);
  }
  out += "[policy]\nname = " + tomlString(o.policyName) + "\n";
  out += "description = " + tomlString("Fitted from forced-configuration sweeps: " + collectives) + "\n";
  for (const FitSeries& s : fit.series) {
    out += "\n# " + s.key.describe() + (s.nodes > 0 ? " on " + std::to_string(s.nodes) + " nodes" : "") +
           ": NCCL default (" + std::to_string(s.defaultRuns) + " runs) against";
    for (const ForcedConfig& c : s.configs) out += " " + c.describe();
    out += ".\n";
    for (const FitBucket& b : s.buckets) {
      if (!b.choice) {
        out += "# " + sizeRange(b.lo, b.hi) + ": no rule; " + evidence(b) + ".\n";
        continue;
      }
      out += "\n# " + b.choice->describe() + " for " + sizeRange(b.lo, b.hi) + ": " + evidence(b) + ".\n";
      policy::RuleText rule;
      rule.name = ruleName(s, b);
      rule.collective = policyCollective(s.key.collective);
      rule.bytes = policy::ValueRange{b.lo, b.hi};
      rule.nodes = s.nodes;
      rule.ranks = s.key.ranks;
      rule.algorithm = b.choice->choice.algorithm;
      rule.protocol = b.choice->choice.protocol;
      rule.channels = b.choice->choice.channels;
      rule.chunkSizes = b.choice->chunkSizes(telemetry::parseCollective(s.key.collective).value_or(-1));
      out += policy::formatRule(rule);
    }
  }
  return out;
}

std::string fitReportMarkdown(const FitResult& fit, const FitOptions& o) {
  std::string out = "# sweep fit\n";
  for (const FitSeries& s : fit.series) {
    out += "\n## " + s.key.describe() + (s.nodes > 0 ? ", " + std::to_string(s.nodes) + " nodes" : "") + "\n\n";
    out += "| size | NCCL default (us) | n | choice | time (us) | n | ratio | " +
           formatFixed(o.verdicts.confidence * 100, 0) +
           "% CI | note |\n|---:|---:|---:|:---|---:|---:|---:|:---:|:---|\n";
    for (const SizeDecision& d : s.sizes) {
      out += "| " + formatByteSize(d.size) + " | " + formatFixed(d.defaultUs, 2) + " | " +
             std::to_string(d.defaultReplicates) + " | ";
      if (d.choice) {
        out += d.choice->describe() + " | " + formatFixed(d.timeUs, 2) + " | " + std::to_string(d.replicates) + " | " +
               formatFixed(d.ratio, 3) + " | " + formatFixed(d.ciLow, 3) + "-" + formatFixed(d.ciHigh, 3) + " | |\n";
      } else {
        out += "NCCL default | | | | | ";
        if (!d.fastestOther.empty()) {
          out += "fastest other: " + d.fastestOther + " at " + formatFixed(d.fastestOtherRatio, 3) +
                 "x, not beyond the noise";
        }
        out += " |\n";
      }
    }
    out += "\nBuckets:\n";
    for (const FitBucket& b : s.buckets) {
      out += "- " + sizeRange(b.lo, b.hi) + ": " + (b.choice ? b.choice->describe() : "NCCL default") + "; " +
             evidence(b) + "\n";
    }
  }
  if (!fit.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const std::string& note : fit.notes) out += "- " + note + "\n";
  }
  return out;
}

}  // namespace nccl_roce::sweep
