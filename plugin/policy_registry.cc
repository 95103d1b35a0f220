#include "plugin/policy_registry.h"

#include <thread>

#include "common/strings.h"
#include "policy/policy_pin.h"

namespace nccl_roce::plugin {

namespace {

constexpr const char* kInlineName = settings::kPolicyInline.name;

struct PinWait {
  std::chrono::seconds seconds{PolicyRegistry::kDefaultPinWaitSeconds};
  std::string warning;  // NCCL_ROCE_POLICY_PIN_WAIT set to something unusable: what it said and what is used
};

PinWait pinWait(const Environment& env) {
  PinWait wait;
  std::optional<std::string> text = env.get(settings::kPolicyPinWait.name);
  if (!text) return wait;
  std::optional<uint64_t> seconds = parseUnsigned(*text);
  if (seconds && *seconds <= PolicyRegistry::kMaxPinWaitSeconds) {
    wait.seconds = std::chrono::seconds(static_cast<int>(*seconds));
  } else {
    wait.warning = "NCCL_ROCE_POLICY_PIN_WAIT='" + *text + "' is not a whole number of seconds from 0 to " +
                   std::to_string(PolicyRegistry::kMaxPinWaitSeconds) + "; waiting the default " +
                   std::to_string(PolicyRegistry::kDefaultPinWaitSeconds) + " s for the pinned policy file";
  }
  return wait;
}

// The variables a policy is requested by, as they are now: what a load (and its wait) reads, so that what it
// loads is what its key names, whatever the process environment becomes meanwhile.
MapEnvironment requestIn(const Environment& env) {
  MapEnvironment request({}, env.isPrivileged());
  for (const char* name :
       {kInlineName, settings::kPolicy.name, settings::kPolicyDigest.name, settings::kPolicyPinWait.name}) {
    if (std::optional<std::string> value = env.get(name)) request.set(name, *value);
  }
  return request;
}

}  // namespace

PolicyRegistry::Loaded PolicyRegistry::loadPinned(const Environment& env, std::chrono::seconds wait) {
  std::shared_ptr<const policy::ActivePolicy> policy = policy::loadRequestedPolicy(env);
  std::string pinText = env.get(settings::kPolicyDigest.name).value_or("");
  if (pinText.empty()) return {policy, false, "", ""};
  std::optional<std::string> pin = policy::parsePolicyDigest(pinText);
  if (!pin) {
    return {policy::ActivePolicy::fallback(policy->requested(), "NCCL_ROCE_POLICY_DIGEST '" + pinText +
                                                                    "' is not a digest (sha256: and 64 hex digits)"),
            false, "", ""};
  }
  auto found = [&] {
    return policy->digest().empty() ? "an unusable policy (" + policy->error() + ")" : policy->digest();
  };
  // An inline policy cannot change while the process runs, so it is not waited for, and the fix is in the pod
  // template. A file is polled until it holds the pinned policy or the wait is over: a ConfigMap update in flight.
  if (!env.get(kInlineName).value_or("").empty()) {
    if (policy->digest() == *pin) return {policy, false, "", ""};
    return {policy, false,
            "NCCL_ROCE_POLICY_DIGEST pins " + *pin + " but the inline policy (NCCL_ROCE_POLICY_INLINE) is " + found() +
                " (not waited for: inline text cannot change while the process runs); pin what `nccl-roce policy "
                "digest -` prints for the text in the pod template, or put the pinned policy's text there",
            ""};
  }
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (policy->digest() != *pin && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    policy = policy::loadRequestedPolicy(env);
  }
  if (policy->digest() == *pin) return {policy, false, "", ""};
  std::string waited = wait.count() > 0 ? " after waiting " + std::to_string(wait.count()) + " s" : "";
  return {policy, false,
          "NCCL_ROCE_POLICY_DIGEST pins " + *pin + " but '" + policy->requested() + "' is " + found() + waited +
              "; set NCCL_ROCE_POLICY_DIGEST to that digest once every pod has the new file, or restore the file "
              "the pin names",
          ""};
}

std::string PolicyRegistry::keyOf(const Environment& env) {
  return env.get(kInlineName).value_or("") + '\0' + env.get(settings::kPolicy.name).value_or("") + '\0' +
         env.get(settings::kPolicyDigest.name).value_or("");
}

PolicyRegistry::Loaded& PolicyRegistry::loadForCommunicator(std::unique_lock<std::mutex>& lock,
                                                            const Environment& env) {
  std::string key = keyOf(env);
  for (;;) {
    auto it = loaded_.find(key);
    if (it != loaded_.end() && it->second.loading) {
      loadedCv_.wait(lock);  // another communicator reads this policy (or waits for its pinned file)
      continue;
    }
    if (it != loaded_.end() && it->second.refusal.empty()) return it->second;
    bool first = it == loaded_.end();
    bool given = !first && it->second.givenToCommunicator;
    Loaded& slot = loaded_[key];
    slot.loading = true;
    MapEnvironment request = requestIn(env);
    lock.unlock();
    Loaded result;
    try {
      PinWait wait = pinWait(request);
      result = loadPinned(request, first ? wait.seconds : std::chrono::seconds(0));
      if (first && !request.get(settings::kPolicyDigest.name).value_or("").empty()) result.warning = wait.warning;
    } catch (...) {
      lock.lock();
      loaded_.erase(key);  // nothing kept: the next communicator tries again
      loadedCv_.notify_all();
      throw;
    }
    lock.lock();
    Loaded& stored = loaded_[key];
    stored = std::move(result);
    stored.givenToCommunicator = given;
    loadedCv_.notify_all();
    return stored;
  }
}

PolicyRegistry::Active PolicyRegistry::active(const Environment& env) {
  std::unique_lock<std::mutex> lock(loadMutex_);
  Loaded& loaded = loadForCommunicator(lock, env);
  bool first = !loaded.givenToCommunicator;
  loaded.givenToCommunicator = true;
  return {loaded.policy, first, loaded.refusal, first ? loaded.warning : ""};
}

PolicyRegistry::Lookup PolicyRegistry::lookup(const std::shared_ptr<const policy::Policy>& policy, uint64_t nRanks,
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
  std::string key = keyOf(env);
  {
    std::lock_guard<std::mutex> lock(loadMutex_);
    auto it = loaded_.find(key);
    if (it != loaded_.end() && !it->second.loading) {
      if (!it->second.refusal.empty()) return {};
      return it->second.policy->environmentDefaults();
    }
  }
  // Not loaded yet, or a communicator is reading it or waiting for its pinned file: read it now, without waiting.
  Loaded now = loadPinned(requestIn(env), std::chrono::seconds(0));
  if (!now.refusal.empty()) return {};
  std::lock_guard<std::mutex> lock(loadMutex_);
  auto it = loaded_.find(key);
  if (it == loaded_.end())
    it = loaded_.emplace(key, std::move(now)).first;  // kept: the first communicator gets it
  else if (it->second.loading || !it->second.refusal.empty())
    return now.policy->environmentDefaults();
  return it->second.policy->environmentDefaults();
}

}  // namespace nccl_roce::plugin
