// What a tuner policy costs before any call: loading and checking it (once per process, at the first
// communicator) and building a communicator shape's lookup (once per shape per process). The policy is the
// callgrind driver's worst case: every rule applies to the communicator, on consecutive 4 KiB size ranges.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "policy/policy_toml.h"
#include "tuner/compiled_policy.h"

namespace nccl_roce::tuner {
namespace {

std::string policyText(int rules) {
  std::string text = "[policy]\nname = \"bench\"\n";
  for (int i = 0; i < rules; ++i) {
    text += "[[rule]]\ncollective = \"allreduce\"\nnodes = \"2..\"\nsize = \"" + std::to_string(i * 4096) + ".." +
            std::to_string((i + 1) * 4096) + "\"\nprotocol = \"ll\"\n";
  }
  return text;
}

void LoadAndCheck(benchmark::State& state) {
  std::string text = policyText(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    policy::PolicyDocument doc = policy::parsePolicyToml(text, "bench.toml");
    if (!doc.ok()) state.SkipWithError("the benchmark policy does not lint");
    benchmark::DoNotOptimize(doc);
  }
}
BENCHMARK(LoadAndCheck)->Arg(10)->Arg(100)->Arg(1000)->Arg(8000)->Unit(benchmark::kMillisecond);

void BuildCommunicatorLookup(benchmark::State& state) {
  policy::PolicyDocument doc = policy::parsePolicyToml(policyText(static_cast<int>(state.range(0))), "bench.toml");
  auto policy = std::make_shared<const policy::Policy>(std::move(*doc.policy));
  for (auto _ : state) {
    CompiledPolicy compiled(policy, 16, 2);
    if (compiled.applicableRules() != policy->rules.size()) state.SkipWithError("rules were dropped");
    benchmark::DoNotOptimize(compiled);
  }
}
BENCHMARK(BuildCommunicatorLookup)->Arg(10)->Arg(100)->Arg(1000)->Arg(8000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nccl_roce::tuner

BENCHMARK_MAIN();
