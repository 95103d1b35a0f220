// User settings that contradict the resolution: a variable the user set always wins, so a wrong one breaks
// RDMA however right the resolution is. The check names what the entry the user points at really is.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using doctor::Outcome;
using ::testing::HasSubstr;

TEST(UserSettingsCheck, PassesWhenNothingIsSet) {
  DoctorWorld w;
  auto r = doctor::checkUserSettings(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass);
  EXPECT_THAT(r.detail, HasSubstr("the resolution applies"));
}

TEST(UserSettingsCheck, PassesWhenTheUsersIndexIsTheResolvedOne) {
  DoctorWorld w;
  w.env.set("NCCL_IB_GID_INDEX", "7");
  EXPECT_EQ(doctor::checkUserSettings(w.inputs()).outcome, Outcome::kPass);
}

TEST(UserSettingsCheck, FailsOnAnIndexPointingAtALinkLocalEntry) {
  DoctorWorld w;
  w.env.set("NCCL_IB_GID_INDEX", "5");  // the v2 link-local entry of the SR-IOV table
  auto r = doctor::checkUserSettings(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("GID 5 on mlx5_0:1, mlx5_1:1 is link-local (fe80:"));
  EXPECT_THAT(r.remedy, HasSubstr("always wins"));
}

TEST(UserSettingsCheck, FailsOnTheKServeDefaultOfThreeWhereThatEntryIsEmpty) {
  DoctorWorld w;
  w.env.set("NCCL_IB_GID_INDEX", "3");
  auto r = doctor::checkUserSettings(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("NCCL_IB_GID_INDEX=3: GID 3 on mlx5_0:1, mlx5_1:1 is empty"))
      << "one sentence names both ports";
  EXPECT_THAT(r.detail, HasSubstr("is empty"));
}

TEST(UserSettingsCheck, FailsOnAnIndexCarryingAnotherPodsAddress) {
  DoctorWorld w;
  // A second pod on the same PF: its address shows up at index 9 of our port's table.
  w.sys.device("mlx5_0").port(1).ipv4Pair(8, "10.200.0.77", "net1");
  w.env.set("NCCL_IB_GID_INDEX", "9");
  auto r = doctor::checkUserSettings(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("carries 10.200.0.77, which is not an address of this pod"));
}

TEST(UserSettingsCheck, FailsOnAValueNcclReadsAsSomethingElse) {
  DoctorWorld w;
  w.env.set("NCCL_IB_GID_INDEX", "auto");
  auto r = doctor::checkUserSettings(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("NCCL_IB_GID_INDEX='auto' is read by NCCL as 0"));
}

TEST(UserSettingsCheck, FailsOnAnHcaNameThatIsAPrefixOfOtherDevices) {
  DoctorWorld w;
  for (int rail = 2; rail < 12; ++rail) w.addRail(rail);
  w.env.set("NCCL_IB_HCA", "mlx5_1");  // NCCL matches prefixes: mlx5_1, mlx5_10, mlx5_11
  auto r = doctor::checkUserSettings(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("NCCL_IB_HCA token 'mlx5_1' is a prefix: it also matches mlx5_10 and more"));
}

TEST(UserSettingsCheck, AcceptsAnExactMatchHcaList) {
  DoctorWorld w;
  for (int rail = 2; rail < 12; ++rail) w.addRail(rail);
  w.env.set("NCCL_IB_HCA", "=mlx5_1:1");
  EXPECT_EQ(doctor::checkUserSettings(w.inputs()).outcome, Outcome::kPass);
}

// NCCL uses every active port the user's list admits: one without a RoCE v2 GID of this pod fails here too, as
// the GID check fails on it, never "your settings agree".
TEST(UserSettingsCheck, FailsOnAnHcaListThatAdmitsAPortTheResolutionLeftOut) {
  DoctorWorld w;
  w.sys.netdev("net3");
  w.sys.device("mlx5_2").port(1).roce(400).tableLength(16).linkLocalGids("net3", 4);  // no address of this pod
  w.env.set("NCCL_IB_HCA", "=mlx5_1,mlx5_2");
  auto r = doctor::checkUserSettings(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("NCCL_IB_HCA '=mlx5_1,mlx5_2' lets NCCL use mlx5_2:1, which the resolution left "
                                  "out: "));
  EXPECT_THAT(r.detail, ::testing::Not(HasSubstr("agree")));
  EXPECT_EQ(doctor::checkGidQualification(w.inputs()).outcome, Outcome::kWarn) << "the same port, the same finding";
}

TEST(UserSettingsCheck, FailsOnAnAddressFamilyNcclDoesNotKnow) {
  DoctorWorld w;
  w.env.set("NCCL_IB_ADDR_FAMILY", "ipv6");
  auto r = doctor::checkUserSettings(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("neither AF_INET nor AF_INET6"));
}

}  // namespace
}  // namespace nccl_roce::testing
