// libibverbs as a second source, through a substitute function table: verbs is the authority for GID values,
// a device the pod cannot open is not usable, and a machine without rdma-core still resolves from sysfs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "tests/unit/gid/resolver_world.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

// The fake RDMA stack behind the table. One instance at a time (the table holds plain function pointers).
struct FakeVerbs {
  struct Device {
    std::string name;
    bool openable = true;
    std::map<int, std::map<int, std::pair<std::string, int>>> ports;  // port -> index -> (kernel gid, type)
    int tableLength = 16;
  };
  std::vector<Device> devices;
  std::vector<ibv_device*> handles;
  static FakeVerbs* current;
};
FakeVerbs* FakeVerbs::current = nullptr;

// Handles and contexts carry the device's position in their address: no real verbs objects are needed.
int indexOf(const void* p) { return static_cast<int>(reinterpret_cast<uintptr_t>(p) >> 4) - 1; }
template <typename T>
T* handleFor(int i) {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(i + 1) << 4);
}

ibv_device** fakeGetDeviceList(int* n) {
  auto& fake = *FakeVerbs::current;
  fake.handles.clear();
  for (size_t i = 0; i < fake.devices.size(); ++i) fake.handles.push_back(handleFor<ibv_device>(static_cast<int>(i)));
  fake.handles.push_back(nullptr);
  *n = static_cast<int>(fake.devices.size());
  return fake.handles.data();
}
void fakeFreeDeviceList(ibv_device**) {}
const char* fakeGetDeviceName(ibv_device* d) { return FakeVerbs::current->devices[indexOf(d)].name.c_str(); }
ibv_context* fakeOpenDevice(ibv_device* d) {
  if (!FakeVerbs::current->devices[indexOf(d)].openable) {
    errno = EACCES;
    return nullptr;
  }
  return handleFor<ibv_context>(indexOf(d));
}
int fakeCloseDevice(ibv_context*) { return 0; }
int fakeQueryDevice(ibv_context* c, ibv_device_attr* attr) {
  attr->phys_port_cnt = static_cast<uint8_t>(FakeVerbs::current->devices[indexOf(c)].ports.size());
  return 0;
}
int fakeQueryPort(ibv_context* c, uint8_t, ibv_port_attr* attr) {
  attr->state = IBV_PORT_ACTIVE;
  attr->link_layer = IBV_LINK_LAYER_ETHERNET;
  attr->gid_tbl_len = FakeVerbs::current->devices[indexOf(c)].tableLength;
  return 0;
}
bool lookup(ibv_context* c, uint32_t port, uint32_t index, gid::GidValue* value, int* type) {
  auto& ports = FakeVerbs::current->devices[indexOf(c)].ports;
  auto p = ports.find(static_cast<int>(port));
  if (p == ports.end()) return false;
  auto e = p->second.find(static_cast<int>(index));
  if (e == p->second.end()) return false;
  *value = *gid::GidValue::parseKernel(e->second.first);
  *type = e->second.second;
  return true;
}
int fakeQueryGid(ibv_context* c, uint8_t port, int index, ibv_gid* out) {
  gid::GidValue value;
  int type;
  std::memset(out, 0, sizeof(*out));
  if (lookup(c, port, static_cast<uint32_t>(index), &value, &type)) std::memcpy(out->raw, value.bytes.data(), 16);
  return 0;
}
int fakeQueryGidEx(ibv_context* c, uint32_t port, uint32_t index, ibv_gid_entry* entry, uint32_t, size_t) {
  gid::GidValue value;
  int type;
  if (!lookup(c, port, index, &value, &type)) return ENODATA;
  std::memcpy(entry->gid.raw, value.bytes.data(), 16);
  entry->gid_index = index;
  entry->port_num = port;
  entry->gid_type = static_cast<uint32_t>(type);
  return 0;
}

gid::IbvFunctions fakeTable(bool withGidEx) {
  gid::IbvFunctions t;
  t.getDeviceList = fakeGetDeviceList;
  t.freeDeviceList = fakeFreeDeviceList;
  t.getDeviceName = fakeGetDeviceName;
  t.openDevice = fakeOpenDevice;
  t.closeDevice = fakeCloseDevice;
  t.queryDevice = fakeQueryDevice;
  t.queryPort = fakeQueryPort;
  t.queryGid = fakeQueryGid;
  if (withGidEx) t.queryGidEx = fakeQueryGidEx;
  return t;
}

class VerbsTest : public ::testing::Test {
 protected:
  void SetUp() override { FakeVerbs::current = &fake; }
  void TearDown() override { FakeVerbs::current = nullptr; }

  // Two rails; the pod's sysfs view of mlx5_1 hides entry 5 (EINVAL / zeros), verbs sees it (case 2).
  void twoRails() {
    for (int i = 0; i < 2; ++i) {
      std::string netdev = "net" + std::to_string(i + 1);
      std::string ip = "10.30." + std::to_string(i) + ".4";
      w.sys.netdev(netdev);
      w.address(netdev, ip + "/24");
      auto port = w.sys.device("mlx5_" + std::to_string(i)).port(1).roce(200).tableLength(8);
      if (i == 0) port.ipv4Pair(4, ip, netdev);
      if (i == 1) port.gid(4, ipv4Gid(ip), "IB/RoCE v1", netdev).file("gid_attrs/ndevs/5", netdev + "\n");
      FakeVerbs::Device d;
      d.name = "mlx5_" + std::to_string(i);
      d.ports[1][4] = {ipv4Gid(ip), IBV_GID_TYPE_ROCE_V1};
      d.ports[1][5] = {ipv4Gid(ip), IBV_GID_TYPE_ROCE_V2};
      fake.devices.push_back(d);
    }
  }

  FakeVerbs fake;
  ResolverWorld w;
};

TEST_F(VerbsTest, VerbsIsTheAuthorityForGidValuesAndDisagreementsAreReported) {
  twoRails();
  FaultyFileAccess files;
  files.fail("mlx5_1/ports/1/gid_attrs/types/5", EINVAL);
  auto table = fakeTable(/*withGidEx=*/true);
  auto r = w.resolve(files, &table);
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "5");
  EXPECT_THAT(joinedWarnings(r), HasSubstr("mlx5_1 port 1 GID 5: sysfs reads it empty, verbs reads "
                                           "0000:0000:0000:0000:0000:ffff:0a1e:0104; using verbs"));
}

TEST_F(VerbsTest, WithoutTheExtendedQueryTheTypeComesFromSysfs) {
  twoRails();
  w.sys.device("mlx5_1").port(1).file("gid_attrs/types/5", "RoCE v2\n");
  auto table = fakeTable(/*withGidEx=*/false);
  auto r = w.resolve(gid::realFileAccess(), &table);
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(portOf(r, "mlx5_1", 1).gidIndex, 5);
}

TEST_F(VerbsTest, DevicesThePodCannotOpenAreNotUsable) {
  twoRails();
  w.sys.device("mlx5_1").port(1).file("gid_attrs/types/5", "RoCE v2\n");
  fake.devices[1].openable = false;  // shared-mode sysfs lists it; /dev/infiniband does not hold it
  auto table = fakeTable(true);
  auto r = w.resolve(gid::realFileAccess(), &table);
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1");
  EXPECT_EQ(portOf(r, "mlx5_1", 1).reason,
            "listed in sysfs but this pod cannot open it (ibv_open_device failed: Permission denied)");
}

TEST_F(VerbsTest, SysfsEntriesVerbsDoesNotHaveAreDropped) {
  twoRails();
  w.sys.device("mlx5_0").port(1).ipv4Pair(6, "10.30.0.4", "net1");
  auto table = fakeTable(true);
  auto r = w.resolve(gid::realFileAccess(), &table);
  EXPECT_THAT(joinedWarnings(r), HasSubstr("mlx5_0 port 1 GID 7: sysfs reads 0000:0000:0000:0000:0000:ffff:0a1e:0004, "
                                           "verbs reads it empty; using verbs"));
  EXPECT_EQ(portOf(r, "mlx5_0", 1).gidIndex, 5);
}

TEST(SystemVerbs, LoadsOnThisMachineOrSaysWhyNot) {
  std::string whyNot;
  const gid::IbvFunctions* table = gid::loadSystemVerbs(&whyNot);
  if (table == nullptr) {
    EXPECT_THAT(whyNot, HasSubstr("libibverbs.so.1"));
    GTEST_SKIP() << whyNot;
  }
  EXPECT_TRUE(table->complete());
  EXPECT_EQ(table, gid::loadSystemVerbs(nullptr)) << "loaded once per process";
  auto devices = gid::queryVerbs(*table);  // no RDMA kernel support here: an empty list or a clean error
  if (devices.isOk()) {
    for (const auto& d : *devices) EXPECT_FALSE(d.name.empty());
  }
}

TEST(SystemVerbs, AnIncompleteTableIsRefused) {
  gid::IbvFunctions empty;
  EXPECT_EQ(gid::queryVerbs(empty).status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace nccl_roce::testing
