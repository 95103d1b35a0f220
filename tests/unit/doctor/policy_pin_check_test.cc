// "policy-pin": the doctor tells the operator, before NCCL does, that a pinned pod holds another policy file
// (every communicator's init would wait for it, then fail), and what to do about it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/sha256.h"
#include "policy/policy_digest.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using doctor::Outcome;
using ::testing::HasSubstr;

const char* kPolicy = "[policy]\nname = \"fitted\"\n[[rule]]\nsize = \"..64K\"\nprotocol = \"ll\"\n";

TEST(PolicyPinCheck, SkipsWithoutAPin) {
  DoctorWorld w;
  EXPECT_EQ(doctor::checkPolicyPin(w.inputs()).outcome, Outcome::kSkip);
}

TEST(PolicyPinCheck, PassesWhenTheFileIsThePinnedOne) {
  DoctorWorld w;
  TempDir dir;
  w.env.set("NCCL_ROCE_POLICY", dir.writeFile("p.toml", kPolicy));
  w.env.set("NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPolicy));
  auto r = doctor::checkPolicyPin(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.detail;
}

TEST(PolicyPinCheck, FailsOnAnotherFileNamingBothDigestsAndTheWayOut) {
  DoctorWorld w;
  TempDir dir;
  std::string stale = std::string(kPolicy) + "# edited\n";
  w.env.set("NCCL_ROCE_POLICY", dir.writeFile("p.toml", stale));
  w.env.set("NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPolicy).substr(7));  // a bare hex pin reads as sha256
  auto r = doctor::checkPolicyPin(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("pins " + policy::policyDigest(kPolicy)));
  EXPECT_THAT(r.detail, HasSubstr("is " + policy::policyDigest(stale)));
  EXPECT_THAT(r.remedy, HasSubstr("set the pin to " + policy::policyDigest(stale)));
}

TEST(PolicyPinCheck, AnInlinePolicyIsWhatIsChecked) {
  DoctorWorld w;
  w.env.set("NCCL_ROCE_POLICY", "/nonexistent.toml");
  w.env.set("NCCL_ROCE_POLICY_INLINE", kPolicy);
  w.env.set("NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPolicy));
  EXPECT_EQ(doctor::checkPolicyPin(w.inputs()).outcome, Outcome::kPass);
}

TEST(PolicyPinCheck, FailsOnAPinThatIsNotADigest) {
  DoctorWorld w;
  w.env.set("NCCL_ROCE_POLICY_DIGEST", "latest");
  auto r = doctor::checkPolicyPin(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.remedy, HasSubstr("nccl-roce policy digest"));
}

}  // namespace
}  // namespace nccl_roce::testing
