#include "plugin/policy_registry.h"

#include <thread>

#include "common/strings.h"
#include "tuner/policy_pin.h"

namespace nccl_roce::plugin {

namespace {

constexpr const char* kInlineName = "NCCL_ROCE_POLICY_INLINE";

// What the environment asks for: an inline policy (which wins: it travels atomically with the pod template), or
// a name or path.
std::shared_ptr<const tuner::ActivePolicy> loadRequested(const Environment& env) {
  std::string text = env.get(kInlineName).value_or("");
  if (!text.empty()) return tuner::loadPolicyText(text, kInlineName, nullptr);
  return tuner::loadPolicySpec(env.get("NCCL_ROCE_POLICY").value_or(""), nullptr);
}

int pinWaitSeconds(const Environment& env) {
  std::optional<uint64_t> seconds = parseUnsigned(env.get("NCCL_ROCE_POLICY_PIN_WAIT").value_or(""));
  return seconds && *seconds <= 3600 ? static_cast<int>(*seconds) : PolicyRegistry::kDefaultPinWaitSeconds;
}

}  // namespace

PolicyRegistry::Loaded PolicyRegistry::loadPinned(const Environment& env) {
  std::shared_ptr<const tuner::ActivePolicy> policy = loadRequested(env);
  std::string pinText = env.get("NCCL_ROCE_POLICY_DIGEST").value_or("");
  if (pinText.empty()) return {policy, false, ""};
  std::optional<std::string> pin = tuner::parsePolicyDigest(pinText);
  if (!pin) {
    return {tuner::ActivePolicy::fallback(policy->requested(), "NCCL_ROCE_POLICY_DIGEST '" + pinText +
                                                                     "' is not a digest (sha256: and 64 hex digits)"),
            false, ""};
  }
  // Poll the file until it holds the pinned policy or the wait is over: a ConfigMap update in flight.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(pinWaitSeconds(env));
  while (policy->digest() != *pin && std::chrono::steady_clock::now() < deadline && !env.get(kInlineName)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    policy = loadRequested(env);
  }
  if (policy->digest() == *pin) return {policy, false, ""};
  std::string found = policy->digest().empty() ? "an unusable policy (" + policy->error() + ")" : policy->digest();
  return {policy, false,
          "NCCL_ROCE_POLICY_DIGEST pins " + *pin + " but '" + policy->requested() + "' is " + found + " after waiting " +
              std::to_string(pinWaitSeconds(env)) + " s"};
}

PolicyRegistry::Loaded& PolicyRegistry::load(const Environment& env) {
  std::string key = env.get(kInlineName).value_or("") + '\0' + env.get("NCCL_ROCE_POLICY").value_or("") + '\0' +
                    env.get("NCCL_ROCE_POLICY_DIGEST").value_or("");
  auto it = loaded_.find(key);
  if (it == loaded_.end()) it = loaded_.emplace(key, loadPinned(env)).first;
  return it->second;
}

PolicyRegistry::Active PolicyRegistry::active(const Environment& env) {
  std::lock_guard<std::mutex> lock(loadMutex_);
  Loaded& loaded = load(env);
  bool first = !loaded.givenToCommunicator;
  loaded.givenToCommunicator = true;
  return {loaded.policy, first, loaded.refusal};
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
