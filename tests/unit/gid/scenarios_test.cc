// The resolver on the machines operators run: each test is one real cluster layout, from GID tables operators
// have published (show_gids, ibv_devinfo and sysfs output in public issues and vendors' guides), with the answer
// NCCL needs there. "Case N" numbers those published tables as the research behind these tests did.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/fixtures/resolver_world.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

// Bare metal: 8 rails, each with the kernel's default table: 0/1 link-local (v1/v2), 2/3 IPv4 (v1/v2).
TEST(Scenario, BareMetalEightRailRoceSelectsIndexThreeOnEveryRail) {
  ResolverWorld w;
  for (int i = 0; i < 8; ++i) {
    std::string netdev = "ens" + std::to_string(i) + "np0";
    std::string ip = "10.0." + std::to_string(i) + ".11";
    w.sys.netdev(netdev);
    w.address(netdev, ip + "/24");
    w.sys.device("mlx5_" + std::to_string(i)).pci("0000:" + std::to_string(17 + i) + ":00.0", i / 4);
    w.sys.device("mlx5_" + std::to_string(i))
        .port(1)
        .roce(400)
        .tableLength(16)
        .linkLocalGids(netdev)
        .ipv4Pair(2, ip, netdev);
  }
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(envOf(r, "NVSHMEM_IB_GID_INDEX"), "3");
  EXPECT_EQ(envOf(r, "UCX_IB_GID_INDEX"), "3");
  EXPECT_EQ(envOf(r, "NVSHMEM_HCA_LIST"), "mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  EXPECT_EQ(envOf(r, "UCX_NET_DEVICES"), envOf(r, "NVSHMEM_HCA_LIST"));
  EXPECT_EQ(envOf(r, "NCCL_IB_ADDR_FAMILY"), "<unset>") << "IPv4 is NCCL's default";
  EXPECT_EQ(envOf(r, "NVSHMEM_HCA_PREFIX"), "<unset>") << "mlx5 is NVSHMEM's default prefix";
  const auto& rail = portOf(r, "mlx5_5", 1);
  EXPECT_TRUE(rail.selected);
  EXPECT_EQ(rail.gidIndex, 3);
  EXPECT_EQ(rail.gid->toKernelString(), "0000:0000:0000:0000:0000:ffff:0a00:050b");
  EXPECT_EQ(rail.netdev, "ens5np0");
  EXPECT_THAT(reasonText(rail), HasSubstr("10.0.5.11 on ens5np0"));
  EXPECT_EQ(rail.pciAddress, "0000:22:00.0");
  EXPECT_EQ(rail.numaNode, 1);
  EXPECT_EQ(rail.role, gid::FunctionRole::kPhysicalFunction);
}

// Kubernetes SR-IOV VF pods (cases 1, 2): the pod's entries start at index 4; 0-3 read as zeros.
TEST(Scenario, SriovVfPodTableStartingAtFourSelectsItsOwnIpv4Entry) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.sys.netdev("eth0");
  w.address("net1", "10.156.129.132/16");
  w.address("eth0", "10.244.3.17/24");
  w.sys.device("mlx5_3").pci("0000:3b:00.2", 0, /*vf=*/true);
  w.sys.device("mlx5_3").port(1).roce(200).tableLength(8).linkLocalGids("net1", 4).ipv4Pair(6, "10.156.129.132",
                                                                                            "net1");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(portOf(r, "mlx5_3", 1).gidIndex, 7);
  EXPECT_EQ(portOf(r, "mlx5_3", 1).role, gid::FunctionRole::kVirtualFunction);
  EXPECT_EQ(portOf(r, "mlx5_3", 1).pciAddress, "0000:3b:00.2");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "7");
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_3:1");
}

// mlx5 sub-functions (and soft-RoCE, auxiliary-bus devices) hang off something that is not a PCI function:
// no PCI address, and neither PF nor VF.
TEST(Scenario, ScalableFunctionDeviceHasNoPciRole) {
  ResolverWorld w;
  w.sys.netdev("enp193s0f0s88");
  w.address("enp193s0f0s88", "10.50.0.2/24");
  w.sys.device("rocep193s0f0S88").pci("mlx5_core.sf.2", 1);
  w.sys.device("rocep193s0f0S88")
      .port(1)
      .roce(200)
      .tableLength(4)
      .linkLocalGids("enp193s0f0s88")
      .ipv4Pair(2, "10.50.0.2", "enp193s0f0s88");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  const auto& sf = portOf(r, "rocep193s0f0S88", 1);
  EXPECT_FALSE(sf.pciAddress.has_value());
  EXPECT_EQ(sf.role, gid::FunctionRole::kUnknown);
  EXPECT_EQ(sf.gidIndex, 3);
}

// macvlan pods share one HCA: other pods' GIDs are in the table, on netdevs that are also called net1 in
// their own namespaces. Only the address configured here tells them apart (case 18a).
TEST(Scenario, MacvlanPodSharingAnHcaTakesTheEntryCarryingItsOwnAddress) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "192.168.10.23/24");
  auto port = w.sys.device("mlx5_0").port(1).roce(100).tableLength(32).linkLocalGids("net1");
  port.ipv4Pair(2, "192.168.10.21", "net1");   // pod A
  port.ipv4Pair(4, "192.168.10.22", "net1");   // pod B
  port.ipv4Pair(14, "192.168.10.23", "net1");  // this pod, added last
  port.ipv4Pair(16, "192.168.10.24", "net1");  // pod D
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(portOf(r, "mlx5_0", 1).gidIndex, 15);
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "15");
}

// Some tables list the IPv4 entries first and the link-local pair after them (case 3).
TEST(Scenario, Ipv4EntriesBeforeLinkLocalOnes) {
  ResolverWorld w;
  w.sys.netdev("eth2");
  w.address("eth2", "172.16.4.9/20");
  w.sys.device("mlx5_1").port(1).roce(100).tableLength(4).ipv4Pair(0, "172.16.4.9", "eth2").linkLocalGids("eth2", 2);
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(portOf(r, "mlx5_1", 1).gidIndex, 1);
}

// RoCE LAG: one verbs device over a bond, its addresses late in the table (cases 6, 13).
TEST(Scenario, BondDeviceWithAHighStartIndex) {
  ResolverWorld w;
  w.sys.netdev("bond0");
  w.address("bond0", "10.10.0.8/24");
  w.sys.device("mlx5_bond_0").pci("0000:99:00.0", 1);
  w.sys.device("mlx5_bond_0")
      .port(1)
      .roce(200)
      .tableLength(16)
      .linkLocalGids("bond0")
      .ipv4Pair(12, "10.10.0.8", "bond0");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_bond_0:1");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "13");
}

// Pure InfiniBand: no GID variables at all (NCCL ignores NCCL_IB_GID_INDEX on IB); down ports say why.
TEST(Scenario, PureInfinibandWithDownPorts) {
  ResolverWorld w;
  for (int i = 0; i < 4; ++i) w.sys.device("mlx5_" + std::to_string(i)).port(1).infiniband(400);
  w.sys.device("mlx5_4").port(1).infiniband(400).state("1: DOWN").physState("2: Polling");
  w.sys.device("mlx5_5").port(1).infiniband(400).state("1: DOWN").physState("3: Disabled");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(r.fabric, gid::LinkLayer::kInfiniBand);
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "<unset>");
  EXPECT_EQ(envOf(r, "UCX_IB_GID_INDEX"), "<unset>");
  const auto& down = portOf(r, "mlx5_4", 1);
  EXPECT_FALSE(down.selected);
  EXPECT_EQ(reasonText(down), "port is DOWN (state 1)");
  EXPECT_FALSE(portOf(r, "mlx5_0", 1).gidIndex.has_value());
  EXPECT_FALSE(portOf(r, "mlx5_0", 1).gid.has_value());
}

// Case 12: InfiniBand rails plus a management ConnectX Ethernet port with a perfectly good RoCE v2 GID.
TEST(Scenario, InfinibandRailsWinOverAManagementEthernetNic) {
  ResolverWorld w;
  w.sys.netdev("eno1");
  w.address("eno1", "10.1.1.5/24");
  w.sys.device("mlx5_0").port(1).infiniband(400);
  w.sys.device("mlx5_1").port(1).infiniband(400);
  w.sys.device("mlx5_2").port(1).roce(100).tableLength(4).linkLocalGids("eno1").ipv4Pair(2, "10.1.1.5", "eno1");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_THAT(reasonText(portOf(r, "mlx5_2", 1)), HasSubstr("InfiniBand fabric chosen"));
}

// Cases 10, 11: an IPv6-only fabric on renamed AMD/Broadcom devices.
TEST(Scenario, Ipv6OnlyFabricSelectsGlobalGidsAndSaysSo) {
  ResolverWorld w;
  for (int i = 0; i < 2; ++i) {
    std::string netdev = "enp" + std::to_string(105 + i) + "s0";
    std::string ip = "fd00:10:" + std::to_string(i) + "::21";
    w.sys.netdev(netdev);
    w.address(netdev, ip + "/64");
    auto port = w.sys.device("rocep" + std::to_string(105 + i) + "s0").port(1).roce(400).tableLength(4);
    port.gid(0, linkLocalGid(i), "RoCE v2", netdev).gid(1, ipv6Gid(ip), "RoCE v2", netdev);
  }
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(r.family, gid::AddressFamily::kIpv6);
  EXPECT_EQ(envOf(r, "NCCL_IB_ADDR_FAMILY"), "AF_INET6");
  EXPECT_EQ(envOf(r, "NVSHMEM_IB_ADDR_FAMILY"), "AF_INET6");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "1");
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=rocep105s0:1,rocep106s0:1");
  EXPECT_EQ(envOf(r, "NVSHMEM_HCA_PREFIX"), "rocep10") << "NVSHMEM skips names without its prefix";
  EXPECT_EQ(portOf(r, "rocep106s0", 1).gid->toAddressString(), "fd00:10:1::21");
}

// Case 9: a RoCE v1-only device beside v2 ones is reported, not mixed in.
TEST(Scenario, RoceV1OnlyDeviceIsNotMixedWithV2Rails) {
  ResolverWorld w;
  w.sys.netdev("eth0");
  w.sys.netdev("eth1");
  w.address("eth0", "10.2.0.4/24");
  w.address("eth1", "10.3.0.4/24");
  w.sys.device("mlx4_0")
      .port(1)
      .roce(100)
      .tableLength(2)
      .gid(0, linkLocalGid(1), "IB/RoCE v1", "eth0")
      .gid(1, ipv4Gid("10.2.0.4"), "IB/RoCE v1", "eth0");
  w.sys.device("mlx5_0").port(1).roce(100).tableLength(4).linkLocalGids("eth1").ipv4Pair(2, "10.3.0.4", "eth1");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1");
  EXPECT_EQ(reasonText(portOf(r, "mlx4_0", 1)), "no qualifying RoCE v2 GID (1 RoCE v1, 1 link-local)");
}

// rdma-core's default udev rule renames devices by PCI path (rocep<bus>s<slot>f<fn>); order is natural.
TEST(Scenario, RdmaCoreRenamedDevicesInNaturalOrder) {
  ResolverWorld w;
  for (std::string bus : {"65", "9", "193"}) {
    std::string dev = "rocep" + bus + "s0f0";
    std::string netdev = "enp" + bus + "s0f0np0";
    std::string ip = "10.20." + bus + ".2";
    w.sys.netdev(netdev);
    w.address(netdev, ip + "/24");
    w.sys.device(dev).port(1).roce(200).tableLength(4).linkLocalGids(netdev).ipv4Pair(2, ip, netdev);
  }
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=rocep9s0f0:1,rocep65s0f0:1,rocep193s0f0:1");
  EXPECT_EQ(envOf(r, "NVSHMEM_HCA_PREFIX"), "rocep");
}

// Vendors side by side (Broadcom bnxt_re beside Intel irdma): no name prefix NVSHMEM could be given.
TEST(Scenario, DevicesOfDifferentDriversShareNoNvshmemPrefix) {
  ResolverWorld w;
  w.sys.netdev("ens1f0np0");
  w.sys.netdev("ens2f0");
  w.address("ens1f0np0", "10.70.0.2/24");
  w.address("ens2f0", "10.70.1.2/24");
  w.sys.device("bnxt_re0")
      .port(1)
      .roce(200)
      .tableLength(4)
      .linkLocalGids("ens1f0np0")
      .ipv4Pair(2, "10.70.0.2", "ens1f0np0");
  w.sys.device("irdma0").port(1).roce(200).tableLength(4).linkLocalGids("ens2f0").ipv4Pair(2, "10.70.1.2", "ens2f0");
  auto r = w.resolve();
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=bnxt_re0:1,irdma0:1");
  EXPECT_EQ(envOf(r, "NVSHMEM_HCA_PREFIX"), "<unset>");
  EXPECT_THAT(joinedWarnings(r), HasSubstr("share no prefix"));
}

// A 25G management NIC with a RoCE v2 address beside 400G rails is not a rail.
TEST(Scenario, SlowerManagementNicBesideFourHundredGigRails) {
  ResolverWorld w;
  for (int i = 0; i < 2; ++i) {
    std::string netdev = "rail" + std::to_string(i);
    w.sys.netdev(netdev);
    w.address(netdev, "10.9." + std::to_string(i) + ".1/24");
    w.sys.device("mlx5_" + std::to_string(i))
        .port(1)
        .roce(400)
        .tableLength(4)
        .linkLocalGids(netdev)
        .ipv4Pair(2, "10.9." + std::to_string(i) + ".1", netdev);
  }
  w.sys.netdev("mgmt0");
  w.address("mgmt0", "10.99.0.1/24");
  w.sys.device("mlx5_2").port(1).roce(25).tableLength(4).linkLocalGids("mgmt0").ipv4Pair(2, "10.99.0.1", "mgmt0");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(reasonText(portOf(r, "mlx5_2", 1)),
            "25 Gb/s is below half of the fastest candidate (400 Gb/s): not a rail");
}

TEST(Scenario, ExactlyHalfTheFastestRateIsKept) {
  ResolverWorld w;
  w.sys.netdev("a");
  w.sys.netdev("b");
  w.sys.device("mlx5_0").port(1).roce(400).tableLength(4).ipv4Pair(2, "10.0.0.1", "a");
  w.sys.device("mlx5_1").port(1).roce(200).tableLength(4).ipv4Pair(2, "10.0.1.1", "b");
  auto r = w.resolve();
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
}

// Case 9 (mlx4 dual port) and ConnectX dual-port cards: port 2 is the live one.
TEST(Scenario, DualPortHcaWithPortTwoActive) {
  ResolverWorld w;
  w.sys.netdev("ens1f1np1");
  w.address("ens1f1np1", "10.4.0.2/24");
  auto dev = w.sys.device("mlx5_0");
  dev.port(1).roce(100).state("1: DOWN").physState("3: Disabled").tableLength(4);
  dev.port(2).roce(100).tableLength(4).linkLocalGids("ens1f1np1").ipv4Pair(2, "10.4.0.2", "ens1f1np1");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:2");
  EXPECT_EQ(envOf(r, "NVSHMEM_HCA_LIST"), "mlx5_0:2");
  EXPECT_FALSE(portOf(r, "mlx5_0", 1).selected);
}

// ConnectX-8 multi-plane RoCE (sichek PR#98): one device, twelve ports, data on 3/6/9/12; "port 1 only"
// tools report all cards down.
TEST(Scenario, MultiPlaneDeviceWithDataOnPortsThreeSixNineTwelve) {
  ResolverWorld w;
  auto dev = w.sys.device("mlx5_0");
  for (int p = 1; p <= 12; ++p) {
    if (p % 3 != 0) {
      dev.port(p).roce(400).state("1: DOWN").physState("3: Disabled").tableLength(4);
      continue;
    }
    std::string net = "plane" + std::to_string(p / 3);
    std::string ip = "10.60." + std::to_string(p) + ".5";
    w.sys.netdev(net);
    w.address(net, ip + "/24");
    dev.port(p).roce(400).tableLength(4).linkLocalGids(net).ipv4Pair(2, ip, net);
  }
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:3,mlx5_0:6,mlx5_0:9,mlx5_0:12");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(r.ports.size(), 12u);
  EXPECT_EQ(reasonText(portOf(r, "mlx5_0", 1)), "port is DOWN (state 1)");
}

// One port of a DGX Spark's ConnectX-7 as rdma-core names it (200 Gb/s): the default link-local pair, then the
// IPv4 pair of `ip` at `first`.
void sparkPort(ResolverWorld& w, const std::string& device, const std::string& netdev, const std::string& ip,
               int first) {
  w.sys.netdev(netdev);
  w.sys.device(device).port(1).roce(200).tableLength(8).linkLocalGids(netdev).ipv4Pair(first, ip, netdev);
}

// DGX Spark (case 20): rdma-core names with a PCI domain (roceP2p1s0f1 beside rocep1s0f1), per-device indices
// that differ and drift. No single index fits; NCCL is steered to this node's subnet instead.
TEST(Scenario, DgxSparkMixedCaseNamesWithDifferentIndices) {
  ResolverWorld w;
  sparkPort(w, "rocep1s0f1", "enp1s0f1np1", "192.168.100.11", 2);
  sparkPort(w, "roceP2p1s0f1", "enP2p1s0f1np1", "192.168.101.11", 4);
  w.address("enp1s0f1np1", "192.168.100.11/24");
  w.address("enP2p1s0f1np1", "192.168.101.11/24");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=roceP2p1s0f1:1,rocep1s0f1:1");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "<unset>");
  EXPECT_EQ(envOf(r, "NCCL_IB_ADDR_RANGE"), "192.168.100.0/23");
  EXPECT_EQ(envOf(r, "NVSHMEM_HCA_PREFIX"), "roce");
  EXPECT_EQ(portOf(r, "roceP2p1s0f1", 1).gidIndex, 5);
  EXPECT_EQ(portOf(r, "rocep1s0f1", 1).gidIndex, 3);
}

// Two DGX Sparks cabled back to back (NVIDIA's "connect two Sparks" setup): the ConnectX-7 netdevs carry only
// IPv4 link-local addresses (169.254/16), and NCCL runs over them. The Spark's own 10GbE port has a routable
// address but no RDMA device.
TEST(Scenario, DgxSparkPairAddressedOnIpv4LinkLocalOnlyResolves) {
  ResolverWorld w;
  sparkPort(w, "rocep1s0f1", "enp1s0f1np1", "169.254.37.11", 2);
  sparkPort(w, "roceP2p1s0f1", "enP2p1s0f1np1", "169.254.201.4", 2);
  w.sys.netdev("enP7s7");
  w.address("enp1s0f1np1", "169.254.37.11/16");
  w.address("enP2p1s0f1np1", "169.254.201.4/16");
  w.address("enP7s7", "192.168.1.40/24");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(r.family, gid::AddressFamily::kIpv4);
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=roceP2p1s0f1:1,rocep1s0f1:1");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(envOf(r, "NCCL_IB_ADDR_FAMILY"), "<unset>");
  const auto& port = portOf(r, "rocep1s0f1", 1);
  EXPECT_EQ(port.gid->toKernelString(), "0000:0000:0000:0000:0000:ffff:a9fe:250b");
  EXPECT_EQ(reasonText(port), "active RoCE port; RoCE v2 GID 3 (169.254.37.11 on enp1s0f1np1), 200 Gb/s");
}

// A 169.254 GID is the fallback of a port, never the preference: a routable IPv4 GID on the same port wins
// whatever its index, with the namespace's addresses known or not.
TEST(Scenario, PortWithRoutableAndLinkLocalIpv4GidsPicksTheRoutableOne) {
  for (bool addressesKnown : {true, false}) {
    SCOPED_TRACE(addressesKnown ? "addresses known" : "matched by netdev alone");
    ResolverWorld w;
    w.sys.netdev("net1");
    if (addressesKnown) {
      w.address("net1", "169.254.10.5/16");
      w.address("net1", "10.0.0.5/24");
    }
    w.sys.device("mlx5_0")
        .port(1)
        .roce(400)
        .tableLength(8)
        .linkLocalGids("net1")
        .ipv4Pair(2, "169.254.10.5", "net1")
        .ipv4Pair(4, "10.0.0.5", "net1");
    auto r = w.resolve();
    ASSERT_TRUE(r.anySelected()) << r.error;
    EXPECT_EQ(portOf(r, "mlx5_0", 1).gidIndex, 5);
    EXPECT_EQ(portOf(r, "mlx5_0", 1).gid->toAddressString(), "10.0.0.5");
    EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "5");
  }
}

// DHCP failed on the management NIC, which fell back to a 169.254 address: its GID now qualifies, and the rate
// rule still keeps it out of the 400G rails.
TEST(Scenario, DhcpFallbackLinkLocalOnASlowManagementNicIsStillNotARail) {
  ResolverWorld w;
  for (int i = 0; i < 2; ++i) {
    std::string netdev = "rail" + std::to_string(i);
    std::string ip = "10.9." + std::to_string(i) + ".1";
    w.sys.netdev(netdev);
    w.address(netdev, ip + "/24");
    w.sys.device("mlx5_" + std::to_string(i))
        .port(1)
        .roce(400)
        .tableLength(4)
        .linkLocalGids(netdev)
        .ipv4Pair(2, ip, netdev);
  }
  w.sys.netdev("mgmt0");
  w.address("mgmt0", "169.254.77.3/16");
  w.sys.device("mlx5_2").port(1).roce(25).tableLength(4).linkLocalGids("mgmt0").ipv4Pair(2, "169.254.77.3", "mgmt0");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(reasonText(portOf(r, "mlx5_2", 1)),
            "25 Gb/s is below half of the fastest candidate (400 Gb/s): not a rail");
}

// A 169.254 GID qualifies only with its address configured here, like any other; IPv6 link-local never does.
TEST(Scenario, LinkLocalGidsThatAreNotThisPodsDoNotQualify) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "169.254.10.5/16");
  w.sys.device("mlx5_0").port(1).roce(200).tableLength(6).linkLocalGids("net1").ipv4Pair(2, "169.254.10.6", "net1");
  auto r = w.resolve();
  EXPECT_FALSE(r.anySelected());
  EXPECT_EQ(reasonText(portOf(r, "mlx5_0", 1)),
            "no qualifying RoCE v2 GID (2 link-local, 2 with addresses not configured in this network namespace)");
}

// Containers: unpopulated gid_attrs entries fail with EINVAL, are empty, or are missing (cases 18, 19).
TEST(Scenario, UnreadableAndEmptyGidAttributesAreSkippedWithReasons) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "10.5.0.9/24");
  auto port = w.sys.device("mlx5_0").port(1).roce(200).tableLength(8);
  port.gid(0, ipv4Gid("10.5.0.9"), "", "net1");                                       // types/0 will fail with EINVAL
  port.gid(1, ipv4Gid("10.5.0.9"), "RoCE v2", "");                                    // ndevs/1 missing
  port.gid(2, ipv4Gid("10.5.0.9"), "RoCE v2", "net1").file("gid_attrs/types/2", "");  // empty type
  port.gid(3, ipv4Gid("10.5.0.9"), "RoCE v2", "net1");
  FaultyFileAccess files;
  files.fail("ports/1/gid_attrs/types/0", EINVAL);
  auto r = w.resolve(files);
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(portOf(r, "mlx5_0", 1).gidIndex, 3);
}

TEST(Scenario, NothingUsableGivesOneClearError) {
  ResolverWorld w;
  w.sys.netdev("eth0");
  w.sys.device("mlx5_0").port(1).roce(100).state("1: DOWN").physState("3: Disabled");
  w.sys.device("mlx5_1").port(1).roce(100).tableLength(4).linkLocalGids("eth0");
  auto r = w.resolve();
  EXPECT_FALSE(r.anySelected());
  EXPECT_EQ(r.error, "no usable RDMA port: none of 2 device port(s) qualified (see each port's reason)");
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "<unset>") << "an empty list would mean 'every device' to NCCL";
  EXPECT_EQ(reasonText(portOf(r, "mlx5_1", 1)), "no qualifying RoCE v2 GID (2 link-local)");
}

TEST(Scenario, NoRdmaDevicesAtAll) {
  ResolverWorld w;
  auto r = w.resolve();
  EXPECT_FALSE(r.anySelected());
  EXPECT_THAT(r.error, HasSubstr("class/infiniband does not exist"));
  EXPECT_TRUE(r.ports.empty());
}

TEST(Scenario, UserSetVariablesAreKeptAndReported) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "10.6.0.3/24");
  w.sys.device("mlx5_0").port(1).roce(200).tableLength(8).linkLocalGids("net1").ipv4Pair(4, "10.6.0.3", "net1");
  w.env.set("NCCL_IB_HCA", "mlx5");
  w.env.set("UCX_IB_GID_INDEX", "");  // set, even if empty
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "mlx5");
  EXPECT_FALSE(r.resolvedValue("NCCL_IB_HCA").has_value());
  EXPECT_EQ(envOf(r, "UCX_IB_GID_INDEX"), "");
  EXPECT_EQ(r.resolvedValue("NCCL_IB_GID_INDEX"), "5");
  for (const auto& s : r.env) {
    if (s.name == "NCCL_IB_HCA") {
      EXPECT_TRUE(s.keptFromUser);
      EXPECT_EQ(s.note, "set by the user; resolved value would be =mlx5_0:1");
    }
  }
}

// Per-pod tables differ per HCA (cases 2, 4, 5): no single index fits, NCCL's own per-device choice is
// steered to this pod's subnet instead.
TEST(Scenario, DifferentIndicesPerHcaSteerNcclInsteadOfForcingOneIndex) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.sys.netdev("net2");
  w.address("net1", "10.156.1.7/24");
  w.address("net2", "10.156.2.7/24");
  w.sys.device("mlx5_0").port(1).roce(400).tableLength(8).linkLocalGids("net1").ipv4Pair(2, "10.156.1.7", "net1");
  w.sys.device("mlx5_1").port(1).roce(400).tableLength(8).linkLocalGids("net2").ipv4Pair(4, "10.156.2.7", "net2");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "<unset>");
  EXPECT_EQ(envOf(r, "NVSHMEM_IB_GID_INDEX"), "<unset>");
  EXPECT_EQ(envOf(r, "NCCL_IB_ADDR_RANGE"), "10.156.0.0/22");
  EXPECT_EQ(envOf(r, "NCCL_IB_ROCE_VERSION_NUM"), "2");
  EXPECT_EQ(envOf(r, "UCX_IB_ROCE_SUBNETS"), "10.156.0.0/22");
  EXPECT_THAT(joinedWarnings(r), HasSubstr("different GID indices"));
  EXPECT_EQ(portOf(r, "mlx5_1", 1).gidIndex, 5);
}

TEST(Scenario, IncompleteAddressKnowledgeFallsBackToNetdevVisibility) {
  ResolverWorld w;  // no addresses given: what `detect --sysfs-root` does without --ifaddrs
  w.sys.netdev("net1");
  auto port = w.sys.device("mlx5_0").port(1).roce(100).tableLength(8).linkLocalGids("net1");
  port.ipv4Pair(2, "10.7.0.1", "eth9");  // another namespace's netdev
  port.ipv4Pair(4, "10.7.0.2", "net1");
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(portOf(r, "mlx5_0", 1).gidIndex, 5);
}

TEST(Scenario, PortsQualifyingOnlyInTheOtherFamilyAreLeftOut) {
  ResolverWorld w;
  w.sys.netdev("a");
  w.sys.netdev("b");
  w.address("a", "10.8.0.1/24");
  w.address("b", "fd00:8::1/64");
  w.sys.device("mlx5_0").port(1).roce(400).tableLength(4).ipv4Pair(2, "10.8.0.1", "a");
  w.sys.device("mlx5_1").port(1).roce(400).tableLength(4).gid(3, ipv6Gid("fd00:8::1"), "RoCE v2", "b");
  auto r = w.resolve();
  EXPECT_EQ(r.family, gid::AddressFamily::kIpv4) << "ties go to IPv4";
  EXPECT_EQ(reasonText(portOf(r, "mlx5_1", 1)), "qualifies only with an IPv6 GID; the selected ports use IPv4");
}

TEST(Scenario, TheFastestPortsDecideTheFamily) {
  ResolverWorld w;
  w.sys.netdev("a");
  w.sys.netdev("b");
  w.sys.device("mlx5_0").port(1).roce(100).tableLength(4).ipv4Pair(2, "10.8.0.1", "a");
  w.sys.device("mlx5_1").port(1).roce(400).tableLength(4).gid(3, ipv6Gid("fd00:8::1"), "RoCE v2", "b");
  auto r = w.resolve();
  EXPECT_EQ(r.family, gid::AddressFamily::kIpv6);
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_1:1");
}

// Among equally fast candidates the family that keeps more ports wins: one stray IPv4 rail must not push
// two IPv6 rails out.
TEST(Scenario, TheFamilyKeepingMoreOfTheFastestPortsWins) {
  ResolverWorld w;
  for (std::string n : {"a", "b", "c"}) w.sys.netdev(n);
  w.sys.device("mlx5_0").port(1).roce(400).tableLength(4).ipv4Pair(2, "10.8.0.1", "a");
  w.sys.device("mlx5_1").port(1).roce(400).tableLength(4).gid(3, ipv6Gid("fd00:8::1"), "RoCE v2", "b");
  w.sys.device("mlx5_2").port(1).roce(400).tableLength(4).gid(3, ipv6Gid("fd00:9::1"), "RoCE v2", "c");
  auto r = w.resolve();
  EXPECT_EQ(r.family, gid::AddressFamily::kIpv6);
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_1:1,mlx5_2:1");
  EXPECT_EQ(reasonText(portOf(r, "mlx5_0", 1)), "qualifies only with an IPv4 GID; the selected ports use IPv6");
}

TEST(Scenario, NcclTakesAtMostThirtyTwoDevicePorts) {
  ResolverWorld w;
  w.sys.netdev("n");
  for (int i = 0; i < 34; ++i) w.sys.device("mlx5_" + std::to_string(i)).port(1).infiniband(200);
  auto r = w.resolve();
  ASSERT_TRUE(r.anySelected());
  EXPECT_TRUE(portOf(r, "mlx5_31", 1).selected);
  EXPECT_FALSE(portOf(r, "mlx5_32", 1).selected);
  EXPECT_THAT(joinedWarnings(r), HasSubstr("2 qualifying port(s) left out"));
}

}  // namespace
}  // namespace nccl_roce::testing
