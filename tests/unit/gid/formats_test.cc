// The kernel's sysfs formats and the address file format, parsed strictly.
#include <gtest/gtest.h>

#include "gid/address_range.h"
#include "gid/address_source.h"
#include "gid/gid_value.h"
#include "gid/sysfs_formats.h"

namespace nccl_roce::gid {
namespace {

TEST(GidValue, ParsesTheKernelsFormatOnly) {
  auto gid = GidValue::parseKernel("0000:0000:0000:0000:0000:ffff:0a9c:8184");
  ASSERT_TRUE(gid);
  EXPECT_TRUE(gid->isIpv4Mapped());
  EXPECT_EQ(gid->toAddressString(), "10.156.129.132");
  EXPECT_EQ(gid->toKernelString(), "0000:0000:0000:0000:0000:ffff:0a9c:8184");
  EXPECT_FALSE(GidValue::parseKernel("::ffff:10.156.129.132"));
  EXPECT_FALSE(GidValue::parseKernel("0000:0000:0000:0000:0000:ffff:0a9c:818"));
  EXPECT_FALSE(GidValue::parseKernel("0000:0000:0000:0000:0000:ffff:0a9c:818g"));
  EXPECT_FALSE(GidValue::parseKernel("0000-0000:0000:0000:0000:ffff:0a9c:8184"));
  EXPECT_FALSE(GidValue::parseKernel(""));
}

TEST(GidValue, ClassifiesByBytesNotSubstrings) {
  // KServe's `grep ffff:` accepts both of these as IPv4.
  auto ula = GidValue::parseKernel("fd00:ffff:0000:0000:0000:0000:0000:0005");
  auto linkLocal = GidValue::parseKernel("fe80:0000:0000:0000:0ac0:ebff:ffff:1cfb");
  ASSERT_TRUE(ula && linkLocal);
  EXPECT_FALSE(ula->isIpv4Mapped());
  EXPECT_FALSE(ula->isIpv6LinkLocal());
  EXPECT_FALSE(linkLocal->isIpv4Mapped());
  EXPECT_TRUE(linkLocal->isIpv6LinkLocal());
  EXPECT_FALSE(linkLocal->isIpv4LinkLocal());
  EXPECT_TRUE(GidValue::parseKernel("febf:0000:0000:0000:0000:0000:0000:0001")->isIpv6LinkLocal());  // fe80::/10
  EXPECT_FALSE(GidValue::parseKernel("fec0:0000:0000:0000:0000:0000:0000:0001")->isIpv6LinkLocal());
  auto spark = GidValue::parseKernel("0000:0000:0000:0000:0000:ffff:a9fe:0102");  // 169.254.1.2
  EXPECT_TRUE(spark->isIpv4LinkLocal());
  EXPECT_FALSE(spark->isIpv6LinkLocal());
  EXPECT_FALSE(GidValue::parseKernel("0000:0000:0000:0000:0000:ffff:a9ff:0102")->isIpv4LinkLocal());  // 169.255.1.2
  EXPECT_FALSE(GidValue::parseKernel("a9fe:0102:0000:0000:0000:0000:0000:0000")->isIpv4LinkLocal());  // not IPv4-mapped
  EXPECT_TRUE(GidValue::parseKernel("0000:0000:0000:0000:0000:0000:0000:0000")->isZero());
}

TEST(SysfsFormats, PortStatesAreReadByNumber) {
  auto active = parsePortState("4: ACTIVE");
  ASSERT_TRUE(active);
  EXPECT_EQ(active->code, PortState::kActive);
  EXPECT_EQ(active->text, "ACTIVE");
  EXPECT_EQ(parsePortState("5: ACTIVE_DEFER")->code, PortState::kActiveDefer)
      << "not ACTIVE, whatever the substring says";
  EXPECT_EQ(parsePortState("9: ACTIVE")->number(), 9) << "a number the kernel may add later is kept, not ACTIVE";
  EXPECT_NE(parsePortState("9: ACTIVE")->code, PortState::kActive);
  EXPECT_EQ(parsePhysState("7: Phy Test")->code, PhysState::kPhyTest);
  EXPECT_EQ(parsePhysState("7: Phy Test")->text, "Phy Test");
  EXPECT_EQ(parsePhysState("5: LinkUp")->code, PhysState::kLinkUp);
  EXPECT_FALSE(parsePortState("ACTIVE"));
  EXPECT_FALSE(parsePortState("x: ACTIVE"));
  EXPECT_FALSE(parsePortState("4:"));
  EXPECT_FALSE(parsePortState("99999999999999999999: X"));
}

TEST(SysfsFormats, RatesAsTheKernelPrintsThem) {
  EXPECT_EQ(parseRateGbps("100 Gb/sec (4X EDR)"), 100.0);
  EXPECT_EQ(parseRateGbps("400 Gb/sec (4X NDR)"), 400.0);
  EXPECT_EQ(parseRateGbps("2.5 Gb/sec (1X SDR)"), 2.5);
  EXPECT_EQ(parseRateGbps("53.125 Gb/sec (1X HDR)"), 53.125);
  EXPECT_FALSE(parseRateGbps("fast"));
  EXPECT_FALSE(parseRateGbps(" Gb/sec"));
  EXPECT_FALSE(parseRateGbps("-1 Gb/sec"));
}

TEST(SysfsFormats, GidTypesAndLinkLayers) {
  EXPECT_EQ(parseGidType("RoCE v2"), GidType::kRoceV2);
  EXPECT_EQ(parseGidType("IB/RoCE v1"), GidType::kRoceV1);
  EXPECT_FALSE(parseGidType("roce v2"));
  EXPECT_EQ(parseLinkLayer("InfiniBand"), LinkLayer::kInfiniBand);
  EXPECT_EQ(parseLinkLayer("Ethernet"), LinkLayer::kEthernet);
  EXPECT_EQ(parseLinkLayer("Unknown"), LinkLayer::kUnknown);
}

TEST(SysfsFormats, DeviceNamesNcclListsCanCarry) {
  EXPECT_TRUE(isListableDeviceName("mlx5_bond_0"));
  EXPECT_TRUE(isListableDeviceName("rocep193s0f0v0S99"));
  EXPECT_FALSE(isListableDeviceName("mlx5,0"));
  EXPECT_FALSE(isListableDeviceName("mlx5:0"));
  EXPECT_FALSE(isListableDeviceName("ml\xffx5"));
  EXPECT_FALSE(isListableDeviceName(""));
  EXPECT_TRUE(isPciAddress("0000:17:00.0"));
  EXPECT_FALSE(isPciAddress("pci0000:00"));
}

TEST(AddressList, ReadsTheDetectIfaddrsFormat) {
  auto list = parseAddressList(
      "# ip -o addr inside the pod\n"
      "lo 127.0.0.1/8\n"
      "net1   10.156.129.132/16   # rail 0\n"
      "\n"
      "net1 fd00:1::5/64\n");
  ASSERT_TRUE(list.isOk()) << list.status().toString();
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[1].ifname, "net1");
  EXPECT_EQ((*list)[1].address.toAddressString(), "10.156.129.132");
  EXPECT_EQ((*list)[1].prefixLength, 16);
  EXPECT_EQ((*list)[2].address.toAddressString(), "fd00:1::5");
}

TEST(AddressList, ErrorsNameTheLine) {
  EXPECT_EQ(parseAddressList("net1 10.0.0.1/24\nnet2 10.0.0.2\n").status().message(),
            "line 2: '10.0.0.2' has no /PREFIXLEN");
  EXPECT_EQ(parseAddressList("net1 10.0.0.1/33\n").status().message(),
            "line 1: '10.0.0.1/33': IPv4 prefix length must be 0..32");
  EXPECT_EQ(parseAddressList("net1\n").status().message(), "line 1: expected 'IFNAME ADDRESS/PREFIXLEN', got 'net1'");
  EXPECT_EQ(parseAddressList("net1 banana/3\n").status().message(), "line 1: 'banana' is not an IPv4 or IPv6 address");
  EXPECT_FALSE(parseAddressList("net1 10.0.0.1/24 10.0.0.2/24\n").isOk());
}

TEST(AddressRange, SmallestRangeHoldingEveryAddress) {
  auto a = parseCidr("x", "10.156.1.7/24")->address;
  auto b = parseCidr("x", "10.156.2.7/24")->address;
  auto range = AddressRange::covering({a, b});
  EXPECT_EQ(range.toString(), "10.156.0.0/22");
  EXPECT_TRUE(range.contains(a));
  EXPECT_TRUE(range.contains(parseCidr("x", "10.156.3.200/24")->address));
  EXPECT_FALSE(range.contains(parseCidr("x", "10.156.4.1/24")->address));
  EXPECT_EQ(AddressRange::covering({a}).toString(), "10.156.1.7/32");
  auto v6 = AddressRange::covering(
      {parseCidr("x", "fd00:10:0::21/64")->address, parseCidr("x", "fd00:10:1::21/64")->address});
  EXPECT_EQ(v6.toString(), "fd00:10::/47");
}

TEST(KernelAddressSource, ReportsAFailingGetifaddrs) {
  KernelAddressSource failing([](struct ifaddrs**) {
    errno = EMFILE;
    return -1;
  });
  auto list = failing.list();
  ASSERT_FALSE(list.isOk());
  EXPECT_NE(list.status().message().find("getifaddrs"), std::string::npos);
}

TEST(KernelAddressSource, ListsThisMachinesLoopback) {
  auto list = KernelAddressSource().list();
  ASSERT_TRUE(list.isOk());
  bool loopback = false;
  for (const auto& a : *list)
    loopback |= a.ifname == "lo" && a.address.toAddressString() == "127.0.0.1" && a.prefixLength == 8;
  EXPECT_TRUE(loopback);
}

}  // namespace
}  // namespace nccl_roce::gid
