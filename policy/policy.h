// The policy model: ordered rules that match a collective call and say which algorithm/protocol (in order of
// preference), how many channels and which chunk size NCCL should use; and experiments that assign policies to
// communicators.
// Evaluation is first match in file order (docs/policy-format.md), like NCCL's own example CSV.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "telemetry/chunk_size.h"

namespace nccl_roce::policy {

struct SourcePosition {
  int line = 0;
  int column = 0;
};

// Inclusive range of unsigned values; the default matches everything.
struct ValueRange {
  uint64_t lo = 0;
  uint64_t hi = std::numeric_limits<uint64_t>::max();
  bool contains(uint64_t value) const { return value >= lo && value <= hi; }
  bool isAll() const { return lo == 0 && hi == std::numeric_limits<uint64_t>::max(); }
  bool intersects(const ValueRange& other) const { return lo <= other.hi && other.lo <= hi; }
  bool operator==(const ValueRange& other) const { return lo == other.lo && hi == other.hi; }
};

// One (algorithm, protocol) preference; -1 in either means "the cheapest NCCL offers" for that part.
struct Choice {
  int algorithm = -1;
  int protocol = -1;
};

// What a rule says for each protocol (NCCL_PROTO_LL, _LL128, _SIMPLE); NCCL's own where it says nothing.
struct ChunkSizes {
  telemetry::ChunkSize byProtocol[telemetry::kNumProtocols];

  bool any() const;
  // NCCL's own for a protocol outside NCCL's three.
  telemetry::ChunkSize forProtocol(int protocol) const {
    return protocol >= 0 && protocol < telemetry::kNumProtocols ? byProtocol[protocol] : telemetry::ChunkSize{};
  }
  // The same chunk size for every protocol: what a rule's single value means.
  static ChunkSizes all(const telemetry::ChunkSize& chunk);
  bool operator==(const ChunkSizes& o) const;
  bool operator!=(const ChunkSizes& o) const { return !(*this == o); }
};

inline constexpr uint32_t kAllCollectives = (1u << 5) - 1;

// Far beyond any fitted policy (a few hundred rules per cluster shape); keeps loading, the overlap checks
// (pairwise) and building a communicator's lookup well under a second even at the limit.
inline constexpr size_t kMaxPolicyRules = 8192;

struct Rule {
  std::string name;
  SourcePosition position;
  uint32_t collectives = kAllCollectives;  // bit c set: matches ncclFunc_t c
  ValueRange bytes;
  ValueRange nodes;
  ValueRange ranks;
  ValueRange pipeOps;
  std::optional<bool> regBuff;
  std::vector<Choice> choices;  // in preference order; empty: keep NCCL's algorithm and protocol
  int channels = 0;             // 0: NCCL decides
  ChunkSizes chunkSizes;        // per protocol; NCCL's own where none is stated (NCCL 2.30.2 and later)

  // Same selectors apart from bytes: rules that can only be told apart by size.
  bool sameSelectorsAs(const Rule& other) const;
};

struct Policy {
  std::string name;
  std::string description;
  std::string source;  // "builtin:inference" or the file path
  std::string digest;  // its identity, policy/policy_digest.h; empty where no loader computed it
  std::vector<Rule> rules;
  std::vector<std::pair<std::string, std::string>> env;  // environment defaults the env plugin serves
  // NCCL's example CSV semantics: a matching rule whose choice is unavailable passes to the next matching
  // rule. Our own format leaves NCCL's choice instead (the rule's own preferences are the fall-through).
  bool unavailableFallsThrough = false;
};

struct ExperimentArm {
  std::string name;
  uint32_t weight = 0;
  std::string policyRef;  // as written: a built-in name or a path relative to the experiment file
  SourcePosition position;
  std::shared_ptr<const Policy> policy;  // filled in by the loader
};

// One combination of [experiment.explore]: what its generated arm forces, and where.
struct ExploredChoice {
  int algorithm = -1;
  int protocol = -1;
  int channels = 0;            // 0: NCCL decides
  telemetry::ChunkSize chunk;  // for the explored protocol; NCCL's own by default
  uint32_t collectives = 0;    // the listed collectives NCCL can run this combination for
  ValueRange nodes;            // the listed node counts NCCL can run it at
};

// [experiment.explore]: generated arms sharing `weight` percent of communicators, each forcing one choice in the
// explored calls and behaving as the base arm's policy everywhere else (docs/policy-format.md, "Exploration").
struct Exploration {
  uint32_t weight = 0;
  std::string base;  // the written arm whose policy the generated arms extend
  SourcePosition position;
  ValueRange bytes;
  std::vector<ExploredChoice> choices;  // algorithm-major in the order written, then protocol, channels, chunk size
  std::vector<ExperimentArm> arms;      // arms[i] forces choices[i]; policies filled in by the loader
};

// How an experiment gives its arms traffic (docs/ab-testing.md, "Switchback experiments").
enum class ExperimentDesign : uint8_t {
  kPerCommunicator,  // each communicator runs one arm for its whole life, by a hash of its id
  kSwitchback,       // every communicator runs every arm, in turns of `block` tuner calls
};
const char* designName(ExperimentDesign design);  // "per-communicator", "switchback"

// What a switchback experiment turns arms by.
struct Switchback {
  uint32_t block = 0;    // tuner calls of a communicator each turn holds; required (the parser refuses 0)
  uint32_t washout = 0;  // collectives of a size bucket left out of the timings after its arm changes
};

// The block a switchback file is advised to start from, and the most it takes (docs/ab-testing.md, "Choosing the
// block", says why): collectives captured into a CUDA graph take their turn's arm for good, and a longer block
// leaves a decode graph (64-81 all-reduces in vLLM) too few rounds of turns to judge by, or puts whole graphs, and
// so whole batch sizes, on one arm.
inline constexpr uint32_t kAdvisedSwitchbackBlock = 4;
inline constexpr uint32_t kMaxSwitchbackBlock = 16;
// The washout unless written: 2, and fewer than a block.
inline constexpr uint32_t kDefaultWashout = 2;

struct Experiment {
  std::string name;
  std::string source;
  std::string digest;  // its identity: its text and every arm's policy identity (policy/policy_digest.h)
  ExperimentDesign design = ExperimentDesign::kPerCommunicator;
  Switchback switchback;            // kSwitchback only
  std::vector<ExperimentArm> arms;  // as written, in file order
  std::optional<Exploration> explore;
};

uint64_t fnv1a64(const std::string& bytes);

}  // namespace nccl_roce::policy
