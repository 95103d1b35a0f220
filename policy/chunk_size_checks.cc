#include "policy/chunk_size_checks.h"

#include <algorithm>

#include "common/strings.h"
#include "policy/nccl_availability.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::policy {

namespace {

bool choiceRuns(const Choice& choice, int algorithm, int protocol) {
  return (choice.algorithm < 0 || choice.algorithm == algorithm) &&
         (choice.protocol < 0 || choice.protocol == protocol);
}

}  // namespace

std::vector<CallKind> callKindsOf(const Rule& rule, int protocol) {
  std::vector<CallKind> kinds;
  for (int c = 0; c < telemetry::kNumCollectives; ++c) {
    if ((rule.collectives & (1u << c)) == 0) continue;
    for (int a = 0; a < telemetry::kMaxAlgorithms; ++a) {
      if ((collectivesOffered(a) & (1u << c)) == 0 || !protocolOffered(a, protocol)) continue;
      bool runs =
          rule.choices.empty() || std::any_of(rule.choices.begin(), rule.choices.end(),
                                              [&](const Choice& choice) { return choiceRuns(choice, a, protocol); });
      if (runs) kinds.push_back({c, a});
    }
  }
  return kinds;
}

std::string chunkProblem(uint64_t bytes, int protocol, const std::vector<CallKind>& kinds, const NcclBuffers& buffers) {
  const uint64_t grain = chunkGrain(protocol);
  const std::string name = telemetry::protocolName(protocol);
  if (bytes < grain) {
    return "below " + name + "'s grain of " + std::to_string(grain) + " bytes: NCCL would round it down to 0";
  }
  if (bytes % grain != 0) {
    return "not a multiple of " + name + "'s grain of " + std::to_string(grain) +
           " bytes (NCCL would round it down to " + std::to_string(bytes - bytes % grain) + ")";
  }
  uint64_t most = 0;
  for (const CallKind& k : kinds) most = std::max(most, maxChunkSize(buffers, k.collective, k.algorithm, protocol));
  if (bytes <= most) return "";
  return "above " + formatByteSize(most) + ", the most NCCL can use with " + name +
         " for the calls this decides (one step of its buffer; docs/policy-format.md, \"Chunk size\")";
}

NcclBuffers buffersOf(const Policy& policy) {
  return NcclBuffers::from([&](const char* name) -> std::optional<std::string> {
    for (const auto& [key, value] : policy.env) {
      if (key == name) return value;
    }
    return std::nullopt;
  });
}

}  // namespace nccl_roce::policy
