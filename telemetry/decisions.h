// The tuner's decisions of one communicator as the rest of the project sees them: per key (what ran: collective,
// size bucket, algorithm, protocol, channels, chunk size), who decided and by which rule, how many calls. The
// tuner counts them (tuner/decision_counts.h) and hands out this snapshot; the profiler labels its timings with
// it (communicator_snapshot.h), the statistics file and the metrics textfile write it, and `nccl-roce ab fit`
// reads it back to write rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "telemetry/cell_key.h"

namespace nccl_roce::telemetry {

enum class DecisionSource : uint8_t {
  kNccl = 0,         // no rule decided: NCCL's own choice
  kRule = 1,         // a rule chose (algorithm/protocol, or only channels or chunk size)
  kUnavailable = 2,  // a rule matched but none of its preferences was available: NCCL's own choice
};
const char* decisionSourceName(DecisionSource source);                     // "nccl", "rule", "unavailable"
std::optional<DecisionSource> decisionSourceNamed(std::string_view name);  // the inverse; nullopt for others

struct DecisionCount {
  CellKey key;  // what ran; its source is kNone
  DecisionSource source = DecisionSource::kNccl;
  std::string rule;  // the deciding rule's name (its `name`, or "line N"); "" where NCCL decided
  std::string arm;   // the experiment arm that decided, where it varies within a communicator; "" otherwise
  uint64_t count = 0;

  bool operator==(const DecisionCount& o) const {
    return key == o.key && source == o.source && rule == o.rule && arm == o.arm && count == o.count;
  }
  // The order files list them in: by key, then who decided.
  bool operator<(const DecisionCount& o) const {
    return std::tie(key, source, rule, arm, count) < std::tie(o.key, o.source, o.rule, o.arm, o.count);
  }
};

struct DecisionTotals {
  uint64_t calls = 0;
  uint64_t fromRules = 0;
  uint64_t unavailable = 0;
};
DecisionTotals totalsOf(const std::vector<DecisionCount>& decisions);

}  // namespace nccl_roce::telemetry
