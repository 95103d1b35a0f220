// "policy-pin": does the policy this pod would load match NCCL_ROCE_POLICY_DIGEST? A mismatch means every
// communicator's tuner init will wait for the file, then fail (an inline policy fails at once; docs/rollout.md):
// say so before NCCL does.
#include "policy/policy_pin.h"

#include "cli/doctor/checks.h"
#include "common/settings.h"

namespace nccl_roce::doctor {

CheckResult checkPolicyPin(const DoctorInputs& in) {
  const char* id = "policy-pin";
  const char* title = "Tuner policy matches its pin";
  std::string pinText = in.env->get(settings::kPolicyDigest.name).value_or("");
  if (pinText.empty()) return CheckResult::skip(id, title, "no pin (NCCL_ROCE_POLICY_DIGEST unset)");
  std::optional<std::string> pin = policy::parsePolicyDigest(pinText);
  if (!pin) {
    return CheckResult::fail(id, title, "NCCL_ROCE_POLICY_DIGEST '" + pinText + "' is not a digest",
                             "set it to what `nccl-roce policy digest FILE` prints (sha256: and 64 hex digits)");
  }
  auto policy = policy::loadRequestedPolicy(*in.env);
  if (!policy->error().empty()) {
    return CheckResult::fail(id, title, "the policy is unusable: " + policy->error(),
                             "fix it (`nccl-roce policy lint`); a pinned process refuses an unusable policy");
  }
  if (policy->digest() == *pin) {
    return CheckResult::pass(id, title, "'" + policy->requested() + "' is " + policy->digest());
  }
  if (policy->requested() == policy::kInlinePolicyVariable) {  // the text is in the pod template: nothing to wait for
    return CheckResult::fail(id, title,
                             "NCCL_ROCE_POLICY_DIGEST pins " + *pin + " but the inline policy is " + policy->digest() +
                                 ": every communicator's init will fail at once",
                             "pin what `nccl-roce policy digest -` prints for the inline text (" + policy->digest() +
                                 "), or put the pinned policy's text in NCCL_ROCE_POLICY_INLINE");
  }
  return CheckResult::fail(id, title,
                           "NCCL_ROCE_POLICY_DIGEST pins " + *pin + " but '" + policy->requested() + "' is " +
                               policy->digest() +
                               ": every communicator's init will wait for the pinned file, then fail",
                           "if the new file is still propagating, wait; if it is the intended policy, set the pin to " +
                               policy->digest() + " in the pod template (a rollout), else restore the file");
}

}  // namespace nccl_roce::doctor
