// The checks of what the resolver saw: port state, GID qualification, RoCE v2, MTU, /dev/infiniband access.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using doctor::Outcome;
using ::testing::HasSubstr;

TEST(PortStateCheck, PassesWhenEveryPortIsActive) {
  DoctorWorld w;
  auto r = doctor::checkPortState(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass);
  EXPECT_EQ(r.detail, "2 of 2 port(s) ACTIVE");
}

TEST(PortStateCheck, WarnsAndNamesAPortThatIsDown) {
  DoctorWorld w;
  w.sys.device("mlx5_1").port(1).state("1: DOWN").physState("3: Disabled");
  auto r = doctor::checkPortState(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr("not active: mlx5_1:1 DOWN"));
}

TEST(PortStateCheck, FailsWhenNoPortIsActive) {
  DoctorWorld w;
  w.sys.device("mlx5_0").port(1).state("1: DOWN");
  w.sys.device("mlx5_1").port(1).state("2: INIT");
  auto r = doctor::checkPortState(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.remedy, HasSubstr("bring the links up"));
}

TEST(PortStateCheck, FailsWithThePluginsRemedyWhenThePodHasNoRdmaDevice) {
  DoctorWorld w(/*rails=*/0);  // a pod without the RDMA resource: no class/infiniband at all
  auto r = doctor::checkPortState(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.remedy, HasSubstr("RDMA devices"));
}

TEST(GidQualificationCheck, PassesWithTheChosenIndexWhenEveryActivePortQualifies) {
  DoctorWorld w;
  auto r = doctor::checkGidQualification(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass);
  EXPECT_EQ(r.detail, "2 of 2 active RoCE port(s) have a RoCE v2 GID of this pod (GID index 7)");
}

TEST(GidQualificationCheck, WarnsAndSaysWhyForAPortWhoseGidsBelongToAnotherPod) {
  DoctorWorld w;
  // mlx5_2 shows only another pod's address (macvlan on a shared PF): nothing configured in this namespace.
  w.sys.netdev("net3");
  w.sys.device("mlx5_2").port(1).roce(400).tableLength(8).linkLocalGids("net3").ipv4Pair(2, "10.202.0.99", "net3");
  auto r = doctor::checkGidQualification(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr("2 of 3 active RoCE port(s)"));
  EXPECT_THAT(r.detail, HasSubstr("mlx5_2:1: "));
  EXPECT_THAT(r.detail, HasSubstr("not configured in this network namespace"));
}

TEST(GidQualificationCheck, FailsWhenNoPortHasAnAddressOfThisPod) {
  DoctorWorld w;
  w.addresses.clear();
  w.address("eth0", "10.244.3.17/24");  // the pod network only: secondary networks not attached
  auto r = doctor::checkGidQualification(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.remedy, HasSubstr("secondary networks"));
}

TEST(GidQualificationCheck, IsSkippedOnInfiniBand) {
  DoctorWorld w(/*rails=*/0);
  w.sys.device("mlx5_0").port(1).infiniband(400);
  EXPECT_EQ(doctor::checkGidQualification(w.inputs()).outcome, Outcome::kSkip);
}

TEST(RoceV2Check, PassesWhenTheActivePortsHaveV2Entries) {
  DoctorWorld w;
  auto r = doctor::checkRoceV2(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass);
  EXPECT_EQ(r.detail, "2 of 2 active Ethernet port(s) have RoCE v2 GIDs");
}

TEST(RoceV2Check, WarnsAboutAPortInRoceV1OnlyMode) {
  DoctorWorld w;
  w.sys.netdev("net3");
  w.address("net3", "10.202.0.42/16");
  w.sys.device("mlx5_2")
      .port(1)
      .roce(400)
      .tableLength(4)
      .gid(0, "fe80:0000:0000:0000:0000:0000:0000:0001", "IB/RoCE v1", "net3")
      .gid(1, "0000:0000:0000:0000:0000:ffff:0aca:002a", "IB/RoCE v1", "net3");
  auto r = doctor::checkRoceV2(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr("RoCE v1 only: mlx5_2:1"));
}

TEST(RoceV2Check, FailsWhenNoPortOffersRoceV2) {
  DoctorWorld w(/*rails=*/0);
  w.sys.netdev("net1");
  w.address("net1", "10.200.0.42/16");
  w.sys.device("mlx5_0").port(1).roce(100).tableLength(4).gid(0, "0000:0000:0000:0000:0000:ffff:0ac8:002a",
                                                              "IB/RoCE v1", "net1");
  auto result = doctor::checkRoceV2(w.inputs());
  EXPECT_EQ(result.outcome, Outcome::kFail);
  EXPECT_THAT(result.remedy, HasSubstr("RoCE v2"));
}

TEST(MtuCheck, PassesWithJumboFramesOnEveryRoceNetdev) {
  DoctorWorld w;
  auto r = doctor::checkMtu(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass);
  EXPECT_EQ(r.detail, "net1 9000, net2 9000");
}

TEST(MtuCheck, WarnsWhenAnMtuLimitsTheRocePathMtuBelow4096) {
  DoctorWorld w;
  w.sys.write("class/net/net2/mtu", "1500\n");
  auto r = doctor::checkMtu(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr("below 4096 on net2"));
  EXPECT_THAT(r.remedy, HasSubstr("MTU 9000"));
}

TEST(MtuCheck, IsSkippedWhenNoMtuCanBeRead) {
  DoctorWorld w;
  ::unlink(w.dir.join("class/net/net1/mtu").c_str());
  ::unlink(w.dir.join("class/net/net2/mtu").c_str());
  auto r = doctor::checkMtu(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_THAT(r.detail, HasSubstr("unreadable"));
}

TEST(DeviceAccessCheck, PassesWhenEverySelectedDeviceHasItsUverbsNode) {
  DoctorWorld w;
  auto r = doctor::checkDeviceAccess(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass);
  EXPECT_THAT(r.detail, HasSubstr("mlx5_1 -> " + w.dir.join("dev") + "/infiniband/uverbs1"));
}

TEST(DeviceAccessCheck, FailsWhenThePodWasGivenTheNetdevButNotTheRdmaDevice) {
  DoctorWorld w;
  ::unlink(w.dir.join("dev/infiniband/uverbs1").c_str());
  auto r = doctor::checkDeviceAccess(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("uverbs1 (not usable)"));
  EXPECT_THAT(r.remedy, HasSubstr("request the RDMA resource"));
}

TEST(DeviceAccessCheck, IsSkippedForAnotherMachinesTreeWithoutADevRoot) {
  DoctorWorld w;
  w.live = false;
  doctor::DoctorInputs in = w.inputs();
  in.devRootGiven = false;
  EXPECT_EQ(doctor::checkDeviceAccess(in).outcome, Outcome::kSkip);
}

}  // namespace
}  // namespace nccl_roce::testing
