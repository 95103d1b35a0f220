#include "policy/policy_loader.h"

#include <map>

#include "common/file.h"
#include "policy/builtin_policies.h"
#include "policy/exploration.h"
#include "policy/nccl_csv.h"
#include "policy/policy_digest.h"
#include "policy/policy_toml.h"

namespace nccl_roce::policy {

namespace {

constexpr size_t kMaxPolicyBytes = 4 << 20;

struct Source {
  std::string name;  // "builtin:inference", the path, or a label (NCCL_ROCE_POLICY_INLINE)
  std::string text;
  bool csv = false;
  bool file = false;  // whether `name` is a file's path, which relative arm paths resolve against
};

std::optional<Source> readSource(const std::string& ref, std::vector<PolicyError>& errors) {
  if (auto builtin = builtinPolicyText(ref)) return Source{"builtin:" + ref, std::string(*builtin), false};
  auto text = readFileBounded(ref, kMaxPolicyBytes);
  if (!text.isOk()) {
    std::string hint =
        ref.find('/') == std::string::npos && ref.find('.') == std::string::npos
            ? " (not a built-in policy either: " + std::string(kPassthroughPolicyName) + ", " + kDefaultPolicyName + ")"
            : "";
    errors.push_back({ref, 0, 0, "cannot read policy: " + text.status().toString() + hint});
    return std::nullopt;
  }
  return Source{ref, std::move(*text), looksLikeNcclCsv(ref), /*file=*/true};
}

PolicyDocument parseSource(const Source& source) {
  PolicyDocument doc = source.csv ? parseNcclCsv(source.text, source.name) : parsePolicyToml(source.text, source.name);
  if (doc.policy) doc.policy->digest = policyDigest(source.text);
  return doc;
}

std::string directoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

std::string summary(const std::vector<PolicyError>& errors, size_t from) {
  if (errors.size() <= from) return "unusable";
  std::string first = errors[from].toString();
  size_t more = errors.size() - from - 1;
  return more == 0 ? first : first + " (and " + std::to_string(more) + " more problem(s); run nccl-roce policy lint)";
}

// Environment defaults are per process, arms per communicator: only what every arm agrees on applies.
std::vector<std::pair<std::string, std::string>> sharedEnvironment(const Experiment& experiment) {
  std::vector<std::pair<std::string, std::string>> shared;
  for (const auto& entry : experiment.arms.front().policy->env) {
    bool everyArm = true;
    for (const auto& arm : experiment.arms) {
      bool has = false;
      for (const auto& e : arm.policy->env) has |= e == entry;
      everyArm &= has;
    }
    if (everyArm) shared.push_back(entry);
  }
  return shared;
}

// Loads every written arm's policy from its file (relative to the experiment's). Returns what the experiment's
// identity covers of them: each arm's name and policy identity, so a changed arm file changes it. Problems are
// appended to `out`. An arm without a policy reference has its error already.
std::vector<std::pair<std::string, std::string>> loadWrittenArms(Experiment& experiment, const Source& source,
                                                                 std::vector<PolicyError>& out) {
  std::vector<std::pair<std::string, std::string>> bundle;
  // By path: arms sharing a file read it, and list its problems, once; the arm that read it first.
  std::map<std::string, std::pair<std::shared_ptr<const Policy>, std::string>> loaded;
  for (auto& arm : experiment.arms) {
    if (arm.policyRef.empty()) continue;
    const bool asWritten = builtinPolicyText(arm.policyRef) || arm.policyRef.front() == '/';
    if (!asWritten && !source.file) {
      // Text from no file (NCCL_ROCE_POLICY_INLINE) has no directory: the process's working directory is vLLM's,
      // not the operator's, so a relative path there would name a different file in every image.
      out.push_back({source.name, arm.position.line, arm.position.column,
                     "arm '" + arm.name + "': policy '" + arm.policyRef +
                         "' is a relative path, and inline text has no directory to resolve it against: give an "
                         "absolute path or a built-in name"});
      continue;
    }
    std::string ref = asWritten ? arm.policyRef : directoryOf(source.name) + arm.policyRef;
    size_t armErrors = out.size();
    auto [entry, first] = loaded.emplace(ref, std::make_pair(nullptr, arm.name));
    if (first) entry->second.first = loadSinglePolicy(ref, &out);
    arm.policy = entry->second.first;
    if (!arm.policy) {
      std::string listed =
          first ? "its problems follow" : "its problems are listed with arm '" + entry->second.second + "'";
      out.insert(out.begin() + static_cast<long>(armErrors),
                 PolicyError{source.name, arm.position.line, arm.position.column,
                             "arm '" + arm.name + "': policy '" + arm.policyRef + "' is unusable (" + listed + ")"});
      continue;
    }
    bundle.emplace_back(arm.name, arm.policy->digest);
  }
  return bundle;
}

// Every arm's policy: the written arms', then the generated arms' from the base arm's; the identity bundle of
// both, as loadWrittenArms.
std::vector<std::pair<std::string, std::string>> loadArms(Experiment& experiment, const Source& source,
                                                          std::vector<PolicyError>& out) {
  const size_t before = out.size();
  std::vector<std::pair<std::string, std::string>> bundle = loadWrittenArms(experiment, source, out);
  if (out.size() > before || !experiment.explore) return bundle;
  const SourcePosition& at = experiment.explore->position;
  const ExperimentArm* base = baseArm(experiment);
  size_t generatedRules = experiment.explore->arms.size() * (base && base->policy ? base->policy->rules.size() + 1 : 0);
  if (generatedRules > kMaxGeneratedRules) {
    out.push_back({source.name, at.line, at.column,
                   "[experiment.explore]: " + std::to_string(experiment.explore->arms.size()) +
                       " generated arms, each with the base policy's rules, would hold " +
                       std::to_string(generatedRules) + " rules (at most " + std::to_string(kMaxGeneratedRules) +
                       "): explore fewer configurations or give a smaller base"});
    return bundle;
  }
  // Statistics count decisions by rule name: a base rule named as a generated one would add up with it.
  for (const ExploredChoice& choice : experiment.explore->choices) {
    if (base == nullptr || !base->policy) break;
    const std::string name = exploredRuleName(choice);
    for (const Rule& rule : base->policy->rules) {
      if (rule.name != name) continue;
      out.push_back({base->policy->source, rule.position.line, rule.position.column,
                     "rule name '" + name + "' is the name of a rule [experiment.explore] of " + source.name +
                         " generates from this policy; rename it"});
    }
  }
  if (out.size() > before) return bundle;
  if (!buildExploredPolicies(experiment, source.text)) {  // the parser checked the base: not expected
    out.push_back(
        {source.name, at.line, at.column, "[experiment.explore]: no base arm '" + experiment.explore->base + "'"});
    return bundle;
  }
  for (const auto& arm : experiment.explore->arms) bundle.emplace_back(arm.name, arm.policy->digest);
  return bundle;
}

}  // namespace

std::shared_ptr<const Policy> loadSinglePolicy(const std::string& ref, std::vector<PolicyError>* errors) {
  std::vector<PolicyError> local;
  std::vector<PolicyError>& out = errors ? *errors : local;
  auto source = readSource(ref, out);
  if (!source) return nullptr;
  PolicyDocument doc = parseSource(*source);
  out.insert(out.end(), doc.errors.begin(), doc.errors.end());
  if (doc.experiment) {
    out.push_back({source->name, 1, 1, "an experiment arm must name a policy, not another experiment"});
    return nullptr;
  }
  if (!doc.ok()) return nullptr;
  return std::make_shared<const Policy>(std::move(*doc.policy));
}

std::shared_ptr<const ActivePolicy> ActivePolicy::fallback(std::string requested, std::string error) {
  auto active = std::make_shared<ActivePolicy>();
  active->requested_ = std::move(requested);
  active->error_ = std::move(error);
  active->policy_ = loadSinglePolicy(kPassthroughPolicyName, nullptr);
  return active;
}

std::shared_ptr<const ActivePolicy> loadPolicySpec(const std::string& value, std::vector<PolicyError>* errors) {
  std::string requested = value.empty() ? kDefaultPolicyName : value;
  std::vector<PolicyError> local;
  std::vector<PolicyError>& out = errors ? *errors : local;
  size_t before = out.size();
  auto source = readSource(requested, out);
  if (!source) return ActivePolicy::fallback(requested, summary(out, before));
  return ActivePolicy::fromText(source->name, source->text, source->csv, source->file, requested, out);
}

std::shared_ptr<const ActivePolicy> loadPolicyText(const std::string& text, const std::string& name,
                                                   std::vector<PolicyError>* errors) {
  std::vector<PolicyError> local;
  return ActivePolicy::fromText(name, text, false, /*fromFile=*/false, name, errors ? *errors : local);
}

std::shared_ptr<const ActivePolicy> ActivePolicy::fromText(const std::string& name, const std::string& text, bool csv,
                                                           bool fromFile, const std::string& requested,
                                                           std::vector<PolicyError>& out) {
  const Source source{name, text, csv, fromFile};
  size_t before = out.size();
  PolicyDocument doc = parseSource(source);
  out.insert(out.end(), doc.errors.begin(), doc.errors.end());
  if (!doc.ok()) {
    // Every problem in one run: a broken experiment's arm files are read too, so lint lists theirs with its own.
    if (doc.experiment) loadWrittenArms(*doc.experiment, source, out);
    return ActivePolicy::fallback(requested, summary(out, before));
  }

  auto active = std::make_shared<ActivePolicy>();
  active->requested_ = requested;
  if (doc.policy) {
    active->policy_ = std::make_shared<const Policy>(std::move(*doc.policy));
    active->env_ = active->policy_->env;
    active->digest_ = active->policy_->digest;
    return active;
  }
  Experiment experiment = std::move(*doc.experiment);
  auto bundle = loadArms(experiment, source, out);
  if (out.size() > before) return ActivePolicy::fallback(requested, summary(out, before));
  active->env_ = sharedEnvironment(experiment);
  experiment.digest = compositeDigest(source.text, bundle);
  active->digest_ = experiment.digest;
  active->experiment_ = std::move(experiment);
  return active;
}

bool ActivePolicy::setsChunkSizes() const {
  auto sets = [](const std::shared_ptr<const Policy>& policy) {
    if (!policy) return false;
    for (const Rule& rule : policy->rules) {
      if (rule.chunkSizes.any()) return true;
    }
    return false;
  };
  if (!experiment_) return sets(policy_);
  for (const ExperimentArm& arm : experiment_->arms) {
    if (sets(arm.policy)) return true;
  }
  if (experiment_->explore) {
    for (const ExperimentArm& arm : experiment_->explore->arms) {
      if (sets(arm.policy)) return true;
    }
  }
  return false;
}

}  // namespace nccl_roce::policy
