// The policies of one process: what NCCL_ROCE_POLICY names (or NCCL_ROCE_POLICY_INLINE holds), loaded once per
// distinct value and kept, so every
// communicator sees the same policy however many there are (hundreds in MoE serving) and whatever happens to
// the file afterwards; and each policy's lookup per communicator shape (nRanks, nNodes), built once and shared,
// since those communicators come in a few shapes. Part of the process context (plugin/process_context.h);
// tests construct their own. Thread-safe: NCCL runs tuner init on several threads at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/env.h"
#include "common/settings.h"
#include "policy/policy_loader.h"
#include "tuner/compiled_policy.h"

namespace nccl_roce::plugin {

class PolicyRegistry {
 public:
  // The active policy for `env`'s NCCL_ROCE_POLICY, for a communicator. first: no communicator had it before,
  // so this one reports its problems (one WARN per process, not one per communicator).
  struct Active {
    std::shared_ptr<const policy::ActivePolicy> policy;
    bool first = false;
    // Non-empty when NCCL_ROCE_POLICY_DIGEST pins a policy this process does not hold, even after waiting for it:
    // the tuner fails the communicator's init with this sentence rather than let its ranks decide differently.
    std::string refusal;
    // Non-empty for the first communicator only: a setting of the pin that could not be used as given
    // (NCCL_ROCE_POLICY_PIN_WAIT), with what was used instead; one WARN per process.
    std::string warning;
  };
  Active active(const Environment& env);

  // The lookup of `policy` for communicators of this shape. builtNow: this call built the shared one.
  struct Lookup {
    std::shared_ptr<const tuner::CompiledPolicy> compiled;
    bool builtNow = false;
  };
  Lookup lookup(const std::shared_ptr<const policy::Policy>& policy, uint64_t nRanks, uint64_t nNodes);

  // What the env plugin serves besides the resolution: the active policy's environment defaults. Never waits
  // for a pinned file (the env plugin runs inside the resolution's 5 s bound), nor for a communicator that does:
  // a policy the pin refuses now serves no defaults, and is not kept, so the tuner's init still waits for the
  // pinned file.
  std::vector<std::pair<std::string, std::string>> environmentDefaults(const Environment& env);

  // How long the first communicator of a process waits for the pinned policy to appear (a ConfigMap update
  // reaches pods at different moments; the kubelet syncs mounted ConfigMaps about once a minute):
  // NCCL_ROCE_POLICY_PIN_WAIT seconds, at most kMaxPinWaitSeconds.
  static constexpr int kDefaultPinWaitSeconds = settings::wholeNumber(settings::kPolicyPinWait.unsetValue);
  static constexpr int kMaxPinWaitSeconds = 3600;

  // Beyond this many shapes (never seen in practice) lookups are built per communicator and not kept.
  static constexpr size_t kMaxShapes = 4096;

 private:
  struct Loaded {
    std::shared_ptr<const policy::ActivePolicy> policy;
    bool givenToCommunicator = false;
    std::string refusal;
    std::string warning;
    bool loading = false;  // a communicator is reading it (or waiting for its pinned file); others wait for it
  };
  // The entry for `env` as a communicator gets it, loaded if need be. A policy the pin refused is read again,
  // without waiting, each time it is asked for: a file that arrives after the wait is still taken, and until then
  // every communicator fails at once instead of waiting again. The reading and the waiting happen without the
  // lock; communicators of the same policy wait for the one that reads it.
  Loaded& loadForCommunicator(std::unique_lock<std::mutex>& lock, const Environment& env);
  // The requested policy, checked against the pin when there is one, waiting at most `wait` for it.
  static Loaded loadPinned(const Environment& env, std::chrono::seconds wait);
  static std::string keyOf(const Environment& env);

  std::mutex loadMutex_;                  // loaded_; never held while reading a file or waiting for one
  std::condition_variable loadedCv_;      // a load finished
  std::map<std::string, Loaded> loaded_;  // by what was asked for (the policy, the inline text, the pin)

  // Keyed by the policy's address: each lookup holds its policy, so the address stays valid.
  using ShapeKey = std::tuple<const policy::Policy*, uint64_t, uint64_t>;
  std::mutex lookupMutex_;
  std::map<ShapeKey, std::shared_ptr<const tuner::CompiledPolicy>> lookups_;
};

}  // namespace nccl_roce::plugin
