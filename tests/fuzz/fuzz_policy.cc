// Fuzz target: policy files in both formats, then everything a loaded policy goes through at run time
// (compiling it for a communicator and deciding calls against a cost table). The input's first byte picks
// the format.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "policy/nccl_csv.h"
#include "policy/policy_toml.h"
#include "policy/value_range_text.h"
#include "tuner/compiled_policy.h"
#include "tuner/decide.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nccl_roce::policy;
  using namespace nccl_roce::tuner;
  if (size == 0) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  PolicyDocument doc = data[0] & 1 ? parseNcclCsv(text, "fuzz.csv") : parsePolicyToml(text, "fuzz.toml");
  for (const auto& e : doc.errors) (void)e.toString();
  if (!doc.ok() || !doc.policy) return 0;
  auto policy = std::make_shared<const Policy>(*doc.policy);
  for (const auto& rule : policy->rules) {
    (void)formatValueRange(rule.bytes, RangeUnit::kBytes);
    (void)formatValueRange(rule.ranks, RangeUnit::kCount);
  }
  float cells[7 * 3];
  for (int i = 0; i < 21; ++i) cells[i] = (data[i % size] & 3) == 0 ? -1.0f : static_cast<float>(data[i % size]);
  for (uint64_t nodes : {1ull, 2ull, 9ull}) {
    CompiledPolicy compiled(policy, nodes * 8, nodes);
    for (uint64_t bytes : {0ull, 1ull, 4096ull, 65536ull, 1ull << 30, ~0ull}) {
      for (int coll = -1; coll < 6; ++coll) {
        float table[21];
        for (int i = 0; i < 21; ++i) table[i] = cells[i];
        CostTable view{table, 7, 3};
        Decision d =
            decide(compiled, {coll, bytes, 1 + static_cast<int>(bytes & 3), static_cast<int>(bytes & 1)}, view);
        int channels = 0;
        applyDecision(d, view, &channels);
        for (int i = 0; i < 21; ++i) {
          if (cells[i] < 0 && table[i] != cells[i]) __builtin_trap();  // never mark an unavailable entry
        }
        if (channels < 0 || channels > 64) __builtin_trap();
      }
    }
  }
  return 0;
}
