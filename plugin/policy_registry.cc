#include "plugin/policy_registry.h"

namespace nccl_roce::plugin {

PolicyRegistry::Loaded& PolicyRegistry::load(const Environment& env) {
  std::string value = env.get("NCCL_ROCE_POLICY").value_or("");
  auto it = loaded_.find(value);
  if (it == loaded_.end()) it = loaded_.emplace(value, Loaded{tuner::loadPolicySpec(value, nullptr), false}).first;
  return it->second;
}

PolicyRegistry::Active PolicyRegistry::active(const Environment& env) {
  std::lock_guard<std::mutex> lock(loadMutex_);
  Loaded& loaded = load(env);
  bool first = !loaded.givenToCommunicator;
  loaded.givenToCommunicator = true;
  return {loaded.policy, first};
}

PolicyRegistry::Lookup PolicyRegistry::lookup(const std::shared_ptr<const tuner::Policy>& policy, uint64_t nRanks,
                                              uint64_t nNodes) {
  ShapeKey key{policy.get(), nRanks, nNodes};
  {
    std::lock_guard<std::mutex> lock(lookupMutex_);
    auto it = lookups_.find(key);
    if (it != lookups_.end()) return {it->second, false};
  }
  // Built outside the lock so communicators of other shapes need not wait; a concurrent twin is discarded.
  auto compiled = std::make_shared<const tuner::CompiledPolicy>(policy, nRanks, nNodes);
  std::lock_guard<std::mutex> lock(lookupMutex_);
  if (lookups_.size() >= kMaxShapes) return {compiled, true};
  auto [it, inserted] = lookups_.emplace(key, std::move(compiled));
  return {it->second, inserted};
}

std::vector<std::pair<std::string, std::string>> PolicyRegistry::environmentDefaults(const Environment& env) {
  std::lock_guard<std::mutex> lock(loadMutex_);
  return load(env).policy->environmentDefaults();
}

}  // namespace nccl_roce::plugin
