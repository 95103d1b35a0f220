// What a winning arm ran, and neighbouring buckets merged: the part of `ab fit` that turns winners into rules.
#include <algorithm>

#include "common/log.h"
#include "common/strings.h"
#include "fleet/ab_fit.h"
#include "telemetry/chunk_size.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::fleet {

namespace {

using telemetry::Choice;

std::string choiceName(const Choice& c) {
  std::string out = std::string(c.algorithm >= 0 ? telemetry::algorithmName(c.algorithm) : "NCCL's algorithm") + "/" +
                    (c.protocol >= 0 ? telemetry::protocolName(c.protocol) : "NCCL's protocol");
  if (c.channels > 0) out += ", " + std::to_string(c.channels) + " channels";
  if (c.chunkSize != 0) out += ", chunk " + telemetry::describeChunkSize(c.chunk());
  return out;
}

std::string percent(uint64_t part, uint64_t whole) {
  return format("%.0f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// "Ring/LL by rules 60%, Tree/LL by rules 30%, NCCL 10%": every way the calls were decided, most first.
std::string breakdown(const std::map<Choice, uint64_t>& byRules, uint64_t nccl, uint64_t unavailable, uint64_t total) {
  std::vector<std::pair<uint64_t, std::string>> parts;
  parts.reserve(byRules.size() + 2);
  for (const auto& [choice, n] : byRules) parts.emplace_back(n, choiceName(choice) + " by rules");
  if (nccl > 0) parts.emplace_back(nccl, "NCCL's choice");
  if (unavailable > 0) parts.emplace_back(unavailable, "NCCL's choice as the rule's was unavailable");
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [n, what] : parts) out += (out.empty() ? "" : ", ") + what + " " + percent(n, total);
  return out;
}

std::string whyNotOneRule(const std::map<Choice, uint64_t>& byRules, uint64_t nccl, uint64_t unavailable,
                          uint64_t total) {
  if (byRules.empty() && unavailable == 0) return "NCCL chose for all its calls there: no rule of its policy matched";
  std::string how = breakdown(byRules, nccl, unavailable, total);
  if (byRules.empty()) return "its rule's choices were unavailable, so NCCL chose: " + how;
  return format("no one configuration of its rules decided %.0f%% of its calls: ", kAbFitRuleShare * 100) + how;
}

}  // namespace

std::string ArmConfiguration::describe() const {
  return choiceName(choice);
}

std::optional<ArmConfiguration> configurationOf(const DecisionCounts& calls, std::string* why) {
  std::map<Choice, uint64_t> byRules;
  std::map<Choice, std::map<std::string, uint64_t>> rules;
  uint64_t total = 0, nccl = 0, unavailable = 0;
  for (const auto& [d, n] : calls) {
    total += n;
    if (d.source == DecisionSource::kNccl) nccl += n;
    if (d.source == DecisionSource::kUnavailable) unavailable += n;
    if (d.source != DecisionSource::kRule) continue;
    byRules[d.choice] += n;
    rules[d.choice][d.rule] += n;
  }
  if (total == 0) {
    *why = "its statistics hold no tuner decisions there";
    return std::nullopt;
  }
  auto most = std::max_element(byRules.begin(), byRules.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  if (most == byRules.end() || static_cast<double>(most->second) < kAbFitRuleShare * static_cast<double>(total)) {
    *why = whyNotOneRule(byRules, nccl, unavailable, total);
    return std::nullopt;
  }
  ArmConfiguration c;
  c.choice = most->first;
  if (c.choice.isNccl()) {
    *why = "its rule left everything to NCCL there";
    return std::nullopt;
  }
  if (c.choice.chunkSize != 0 && c.choice.protocol < 0) {
    *why = "its rule's chunk size ran with a protocol its statistics do not name";
    return std::nullopt;
  }
  const auto& names = rules[most->first];
  c.rule = std::max_element(names.begin(), names.end(), [](const auto& a, const auto& b) {
             return a.second < b.second;
           })->first;
  c.share = static_cast<double>(most->second) / static_cast<double>(total);
  return c;
}

std::vector<FittedRule> mergeRules(const std::vector<CellFit>& cells) {
  std::vector<FittedRule> rules;
  for (size_t i = 0; i < cells.size(); ++i) {
    const CellFit& cf = cells[i];
    if (!cf.ruled()) continue;
    const ArmChallenge& won = cf.challenges[*cf.winner];
    int collective = collectiveOfCell(cf.cell), bucket = bucketOfCell(cf.cell);
    // Only a measured neighbour extends a rule: an unmeasured bucket between two is never bridged.
    if (!rules.empty()) {
      FittedRule& last = rules.back();
      if (last.nodes == cf.nodes && last.collective == collective && last.lastBucket + 1 == bucket &&
          last.arm == won.arm && last.configuration.choice == won.configuration->choice) {
        last.lastBucket = bucket;
        last.cells.push_back(i);
        continue;
      }
    }
    rules.push_back(FittedRule{cf.nodes, collective, bucket, bucket, won.arm, *won.configuration, {i}});
  }
  return rules;
}

}  // namespace nccl_roce::fleet
