// What the user already set always wins, and the rest of the resolution follows it: a user-set NCCL_IB_HCA
// narrows what NVSHMEM, UCX and the GID index are derived from (KServe's script ignores it), a forced GID
// index that points at the wrong entry is named per port, and UCX is never given two settings it refuses
// together.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gid/hca_list.h"
#include "tests/fixtures/resolver_world.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(NcclHcaList, PlainNamesArePrefixes) {
  auto list = gid::NcclHcaList::parse("mlx5_1");
  EXPECT_TRUE(list.admits("mlx5_1", 1));
  EXPECT_TRUE(list.admits("mlx5_10", 1)) << "NCCL's documented prefix hazard";
  EXPECT_FALSE(list.admits("mlx5_2", 1));
}

TEST(NcclHcaList, EqualsMeansExactNamesAndPortsNarrow) {
  auto list = gid::NcclHcaList::parse("=mlx5_1:1,mlx5_2");
  EXPECT_TRUE(list.exact());
  EXPECT_TRUE(list.admits("mlx5_1", 1));
  EXPECT_FALSE(list.admits("mlx5_1", 2));
  EXPECT_FALSE(list.admits("mlx5_10", 1));
  EXPECT_TRUE(list.admits("mlx5_2", 2)) << "no port given: any port";
}

TEST(NcclHcaList, CaretExcludesAndMustComeFirst) {
  auto excluded = gid::NcclHcaList::parse("^=mlx5_1");
  EXPECT_FALSE(excluded.admits("mlx5_1", 1));
  EXPECT_TRUE(excluded.admits("mlx5_10", 1));
  auto literal = gid::NcclHcaList::parse("=^mlx5_1");
  EXPECT_FALSE(literal.exclude());
  EXPECT_FALSE(literal.admits("mlx5_1", 1)) << "'^mlx5_1' is then an exact name";
}

TEST(NcclHcaList, EmptyListAdmitsEverythingAndALoneCaretExcludesEverything) {
  EXPECT_TRUE(gid::NcclHcaList::parse("").admits("mlx5_0", 1));
  EXPECT_TRUE(gid::NcclHcaList::parse(",,").admits("mlx5_0", 1));
  EXPECT_FALSE(gid::NcclHcaList::parse("^").admits("mlx5_0", 1));
}

TEST(NcclHcaList, PortsAreReadWithAtoiAndRailPlaneFieldsAreIgnored) {
  auto list = gid::NcclHcaList::parse("mlx5_0:1x,mlx5_1::0:0,mlx5_2:x");
  EXPECT_TRUE(list.admits("mlx5_0", 1));
  EXPECT_FALSE(list.admits("mlx5_0", 2));
  EXPECT_TRUE(list.admits("mlx5_1", 2)) << "empty port field: any port";
  EXPECT_FALSE(list.admits("mlx5_2", 1)) << "atoi(\"x\") is port 0";
}

TEST(NcclHcaList, OnlyThirtyTwoEntriesAreRead) {
  std::string text = "=";
  for (int i = 0; i < 34; ++i) text += (i ? "," : "") + std::string("d") + std::to_string(i);
  auto list = gid::NcclHcaList::parse(text);
  EXPECT_EQ(list.entries().size(), 32u);
  EXPECT_TRUE(list.admits("d31", 1));
  EXPECT_FALSE(list.admits("d32", 1));
}

// Four rails of a pod, each with its own index (a per-pod table: 5, 7, 5, 9).
void addFourRails(ResolverWorld& w) {
  const int firstIndex[] = {4, 6, 4, 8};
  for (int i = 0; i < 4; ++i) {
    std::string net = "net" + std::to_string(i + 1);
    std::string ip = "10.40." + std::to_string(i) + ".7";
    w.sys.netdev(net);
    w.address(net, ip + "/24");
    w.sys.device("mlx5_" + std::to_string(i))
        .port(1)
        .roce(400)
        .tableLength(12)
        .linkLocalGids(net)
        .ipv4Pair(firstIndex[i], ip, net);
  }
}

TEST(UserHcaList, NarrowsWhatNvshmemUcxAndTheGidIndexAreDerivedFrom) {
  ResolverWorld w;
  addFourRails(w);
  w.env.set("NCCL_IB_HCA", "=mlx5_0:1,mlx5_2:1");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_2:1");
  EXPECT_EQ(envOf(r, "NVSHMEM_HCA_LIST"), "mlx5_0:1,mlx5_2:1");
  EXPECT_EQ(envOf(r, "UCX_NET_DEVICES"), "mlx5_0:1,mlx5_2:1");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "5") << "uniform over the ports NCCL will use";
  EXPECT_EQ(reasonText(portOf(r, "mlx5_1", 1)), "not admitted by the user's NCCL_IB_HCA (=mlx5_0:1,mlx5_2:1)");
  EXPECT_FALSE(portOf(r, "mlx5_3", 1).selected);
}

TEST(UserHcaList, ExclusionListsLeaveTheRest) {
  ResolverWorld w;
  addFourRails(w);
  w.env.set("NCCL_IB_HCA", "^=mlx5_1,mlx5_3");
  auto r = w.resolve();
  EXPECT_EQ(envOf(r, "UCX_NET_DEVICES"), "mlx5_0:1,mlx5_2:1");
}

TEST(UserHcaList, ActivePortsTheListLetsNcclUseButWeWouldNotAreNamed) {
  ResolverWorld w;
  addFourRails(w);
  w.sys.netdev("mgmt0");
  w.address("mgmt0", "10.99.0.1/24");
  w.sys.device("mlx5_10").port(1).roce(25).tableLength(4).linkLocalGids("mgmt0").ipv4Pair(2, "10.99.0.1", "mgmt0");
  w.env.set("NCCL_IB_HCA", "mlx5_1");  // a prefix: mlx5_10 too
  auto r = w.resolve();
  EXPECT_EQ(envOf(r, "UCX_NET_DEVICES"), "mlx5_1:1");
  EXPECT_THAT(joinedWarnings(r), HasSubstr("the user's NCCL_IB_HCA (mlx5_1) lets NCCL use mlx5_10:1, which was "
                                           "not selected: 25 Gb/s is below half of the fastest candidate"));
}

TEST(UserHcaList, AListThatAdmitsNothingUsableIsAClearError) {
  ResolverWorld w;
  addFourRails(w);
  w.env.set("NCCL_IB_HCA", "=mlx5_7");
  auto r = w.resolve();
  EXPECT_FALSE(r.anySelected());
  EXPECT_EQ(envOf(r, "NVSHMEM_HCA_LIST"), "<unset>");
}

// SR-IOV pod whose own entries start at 4 (cases 1, 2) with KServe's sample's NCCL_IB_GID_INDEX=3.
TEST(UserGidIndex, ForcedIndexPointingAtAnEmptyEntryIsNamedPerPort) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "10.156.129.132/16");
  w.sys.device("mlx5_3").port(1).roce(200).tableLength(8).linkLocalGids("net1", 4).ipv4Pair(6, "10.156.129.132",
                                                                                            "net1");
  w.env.set("NCCL_IB_GID_INDEX", "3");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "3") << "kept";
  EXPECT_THAT(joinedWarnings(r), HasSubstr("NCCL_IB_GID_INDEX=3 (set by the user) makes NCCL use an empty entry on "
                                           "mlx5_3:1; this pod's RoCE v2 GID there is index 7 (10.156.129.132)"));
}

TEST(UserGidIndex, ForcedIndexHoldingAnotherPodsAddress) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "192.168.10.23/24");
  auto port = w.sys.device("mlx5_0").port(1).roce(100).tableLength(32).linkLocalGids("net1");
  port.ipv4Pair(2, "192.168.10.21", "net1").ipv4Pair(14, "192.168.10.23", "net1");
  w.env.set("NCCL_IB_GID_INDEX", "3");
  w.env.set("UCX_IB_GID_INDEX", "1");
  auto r = w.resolve();
  std::string warnings = joinedWarnings(r);
  EXPECT_THAT(warnings, HasSubstr("makes NCCL use GID 192.168.10.21, an address not configured on net1 here "
                                  "(another pod's) on mlx5_0:1"));
  EXPECT_THAT(warnings, HasSubstr("UCX_IB_GID_INDEX=1 (set by the user) makes UCX use the link-local GID fe80::"));
}

TEST(UserGidIndex, NcclReadsAutoAsZeroAndOctalAsOctal) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "10.6.0.3/24");
  w.sys.device("mlx5_0").port(1).roce(200).tableLength(12).linkLocalGids("net1").ipv4Pair(8, "10.6.0.3", "net1");
  w.env.set("NCCL_IB_GID_INDEX", "auto");
  std::string autoWarnings = joinedWarnings(w.resolve());
  EXPECT_THAT(autoWarnings, HasSubstr("NCCL reads NCCL_IB_GID_INDEX='auto' as 0"));
  EXPECT_THAT(autoWarnings, HasSubstr("makes NCCL use the link-local GID fe80::"));

  w.env.set("NCCL_IB_GID_INDEX", "011");  // meant 11, read as 9: this pod's entry, by luck
  std::string octal = joinedWarnings(w.resolve());
  EXPECT_THAT(octal, HasSubstr("NCCL reads NCCL_IB_GID_INDEX='011' as 9"));
  EXPECT_THAT(octal, Not(HasSubstr("makes NCCL use")));
}

TEST(UserGidIndex, IndexPastTheTableAndNegativeOrEmptyValues) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "10.6.0.3/24");
  w.sys.device("mlx5_0").port(1).roce(200).tableLength(4).linkLocalGids("net1").ipv4Pair(2, "10.6.0.3", "net1");
  w.env.set("NVSHMEM_IB_GID_INDEX", "16");
  w.env.set("NCCL_IB_GID_INDEX", "-1");  // NCCL's automatic selection
  w.env.set("UCX_IB_GID_INDEX", "three");
  auto r = w.resolve();
  std::string warnings = joinedWarnings(r);
  EXPECT_THAT(warnings, HasSubstr("NVSHMEM_IB_GID_INDEX=16 (set by the user) makes NVSHMEM use an index past the end "
                                  "of the GID table on mlx5_0:1"));
  EXPECT_THAT(warnings, HasSubstr("UCX_IB_GID_INDEX='three' (set by the user) is not a GID index or 'auto'"));
  EXPECT_THAT(warnings, Not(HasSubstr("NCCL_IB_GID_INDEX")));
}

TEST(UserGidIndex, TheRightIndexOrAnotherOfThisPodsGidsIsNotWarnedAbout) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "10.6.0.3/24");
  w.address("net1", "fd00:6::3/64");
  auto port =
      w.sys.device("mlx5_0").port(1).roce(200).tableLength(8).linkLocalGids("net1").ipv4Pair(2, "10.6.0.3", "net1");
  port.gid(5, ipv6Gid("fd00:6::3"), "RoCE v2", "net1");
  w.env.set("NCCL_IB_GID_INDEX", "3");
  w.env.set("UCX_IB_GID_INDEX", "5");
  auto r = w.resolve();
  EXPECT_EQ(joinedWarnings(r), "");
}

TEST(UserUcxSettings, UcxNeverGetsRoceSubnetsBesideAUserGidIndex) {
  ResolverWorld w;
  addFourRails(w);  // indices differ: UCX_IB_ROCE_SUBNETS would steer
  w.env.set("UCX_IB_GID_INDEX", "auto");
  auto r = w.resolve();
  EXPECT_EQ(envOf(r, "UCX_IB_ROCE_SUBNETS"), "<unset>");
  EXPECT_EQ(envOf(r, "NCCL_IB_ADDR_RANGE"), "10.40.0.0/22");
  EXPECT_THAT(joinedWarnings(r), HasSubstr("UCX_IB_ROCE_SUBNETS=10.40.0.0/22 not set: UCX refuses it together with "
                                           "UCX_IB_GID_INDEX, which the user set"));
}

TEST(UserUcxSettings, NorAGidIndexBesideUserRoceSubnets) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "10.6.0.3/24");
  w.sys.device("mlx5_0").port(1).roce(200).tableLength(4).linkLocalGids("net1").ipv4Pair(2, "10.6.0.3", "net1");
  w.env.set("UCX_IB_ROCE_SUBNETS", "10.6.0.0/24");
  auto r = w.resolve();
  EXPECT_EQ(envOf(r, "UCX_IB_GID_INDEX"), "<unset>");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "3");
}

// Nothing extra is read unless the user forces an index.
TEST(UserGidIndex, ForcedEntriesCostReadsOnlyWhenForced) {
  ResolverWorld w;
  addFourRails(w);
  size_t plain = w.resolve().filesRead;
  w.env.set("NCCL_IB_GID_INDEX", "1");
  size_t forced = w.resolve().filesRead;
  EXPECT_EQ(forced, plain + 4 * 3) << "gids, ndevs and types of index 1 on each of four ports";
}

}  // namespace
}  // namespace nccl_roce::testing
