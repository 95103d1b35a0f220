// libibverbs as a second source, through a substitute function table: verbs is the authority for GID values,
// a device the pod cannot open is not usable, and a machine without rdma-core still resolves from sysfs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>

#include "tests/fixtures/fake_verbs.h"
#include "tests/fixtures/resolver_world.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

class VerbsTest : public ::testing::Test {
 protected:
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
      auto& d = fake.device("mlx5_" + std::to_string(i));
      d.ports[1].tableLength = 8;
      d.ports[1].gids[4] = {ipv4Gid(ip), IBV_GID_TYPE_ROCE_V1};
      d.ports[1].gids[5] = {ipv4Gid(ip), IBV_GID_TYPE_ROCE_V2};
    }
  }

  FakeVerbs fake;
  ResolverWorld w;
};

TEST_F(VerbsTest, VerbsIsTheAuthorityForGidValuesAndDisagreementsAreReported) {
  twoRails();
  FaultyFileAccess files;
  files.fail("mlx5_1/ports/1/gid_attrs/types/5", EINVAL);
  auto table = fake.table(FakeVerbs::Query::kGidEx);
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
  auto table = fake.table(FakeVerbs::Query::kPlain);
  auto r = w.resolve(gid::realFileAccess(), &table);
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(portOf(r, "mlx5_1", 1).gidIndex, 5);
}

// rdma-core >= v31: the whole table, with types, in one query per device.
TEST_F(VerbsTest, TheWholeTableQueryGivesTheSameAnswerInOneCall) {
  twoRails();
  FaultyFileAccess files;
  files.fail("mlx5_1/ports/1/gid_attrs/types/5", EINVAL);
  auto table = fake.table(FakeVerbs::Query::kGidTable);
  w.checkSnapshotReplay = false;  // counting the queries of one resolution
  auto r = w.resolve(files, &table);
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "5") << "the type of entry 5 comes from verbs: sysfs fails EINVAL";
  EXPECT_EQ(fake.gidQueries, 2u) << "one table query per device";
}

TEST_F(VerbsTest, DevicesThePodCannotOpenAreNotUsable) {
  twoRails();
  w.sys.device("mlx5_1").port(1).file("gid_attrs/types/5", "RoCE v2\n");
  fake.devices[1].openable = false;  // shared-mode sysfs lists it; /dev/infiniband does not hold it
  auto table = fake.table(FakeVerbs::Query::kGidEx);
  auto r = w.resolve(gid::realFileAccess(), &table);
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1");
  EXPECT_EQ(reasonText(portOf(r, "mlx5_1", 1)),
            "listed in sysfs but this pod cannot open it (ibv_open_device failed: Permission denied)");
}

// sysfs alone would pick 3; verbs (what NCCL queries) has nothing there.
TEST_F(VerbsTest, SysfsEntriesVerbsDoesNotHaveAreDropped) {
  twoRails();
  w.sys.device("mlx5_0").port(1).ipv4Pair(2, "10.30.0.4", "net1");
  auto table = fake.table(FakeVerbs::Query::kGidEx);
  auto r = w.resolve(gid::realFileAccess(), &table);
  EXPECT_THAT(joinedWarnings(r), HasSubstr("mlx5_0 port 1 GID 3: sysfs reads 0000:0000:0000:0000:0000:ffff:0a1e:0004, "
                                           "verbs reads it empty; using verbs"));
  EXPECT_EQ(portOf(r, "mlx5_0", 1).gidIndex, 5);
}

// The views are compared up to the chosen entry, no further: entries past it cannot change the answer, so a
// resolution with verbs reads no more sysfs files than one without.
TEST_F(VerbsTest, ComparingTheViewsStopsAtTheChosenEntry) {
  twoRails();
  w.sys.device("mlx5_1").port(1).file("gid_attrs/types/5", "RoCE v2\n").file("gids/5", ipv4Gid("10.30.1.4") + "\n");
  w.sys.device("mlx5_0").port(1).ipv4Pair(6, "10.30.0.99", "net1");  // past the chosen entry, not in verbs
  auto table = fake.table(FakeVerbs::Query::kGidEx);
  auto withVerbs = w.resolve(gid::realFileAccess(), &table);
  auto sysfsOnly = w.resolve();
  EXPECT_EQ(joinedWarnings(withVerbs), "");
  EXPECT_EQ(withVerbs.filesRead, sysfsOnly.filesRead);
  EXPECT_EQ(envOf(withVerbs, "NCCL_IB_GID_INDEX"), "5");
}

// NCCL skips a port that verbs does not report ACTIVE, whatever sysfs says (a stale or foreign sysfs view).
TEST_F(VerbsTest, PortStatesAreTakenFromVerbsWhenTheViewsDisagree) {
  twoRails();
  w.sys.device("mlx5_1").port(1).file("gid_attrs/types/5", "RoCE v2\n");
  fake.devices[0].ports[1].state = IBV_PORT_DOWN;
  auto table = fake.table(FakeVerbs::Query::kGidEx);
  auto r = w.resolve(gid::realFileAccess(), &table);
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_1:1");
  EXPECT_EQ(reasonText(portOf(r, "mlx5_0", 1)), "port is DOWN (state 1)");
  EXPECT_THAT(joinedWarnings(r),
              HasSubstr("mlx5_0 port 1: sysfs state is 4: ACTIVE, verbs state is 1: DOWN; using verbs"));
}

// Fault injection: libibverbs loads but one of its calls fails every time.
TEST_F(VerbsTest, EachFailingVerbsCallEndsInTheDocumentedFallback) {
  twoRails();
  w.sys.device("mlx5_1").port(1).file("gid_attrs/types/5", "RoCE v2\n");
  w.sys.device("mlx5_1").port(1).gid(5, ipv4Gid("10.30.1.4"), "RoCE v2", "net2");
  using Query = FakeVerbs::Query;
  for (const char* call :
       {"getDeviceList", "openDevice", "queryDevice", "queryPort", "queryGid", "queryGidEx", "queryGidTable"}) {
    SCOPED_TRACE(call);
    fake.failing = call;
    for (Query query : {Query::kGidTable, Query::kGidEx, Query::kPlain}) {
      auto table = fake.table(query);
      auto r = w.resolve(gid::realFileAccess(), &table);
      if (std::string(call) == "getDeviceList") {
        EXPECT_THAT(r.verbsSource, HasSubstr("ibv_get_device_list failed")) << "sysfs alone then";
        EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
      } else if (std::string(call) == "openDevice") {
        EXPECT_FALSE(r.anySelected()) << "a pod that cannot open a device cannot use it";
        EXPECT_THAT(reasonText(portOf(r, "mlx5_0", 1)), HasSubstr("this pod cannot open it"));
        EXPECT_THAT(r.error, HasSubstr("no usable RDMA port"));
      } else {
        // A device, port or GID table verbs cannot describe: its GIDs come from sysfs.
        EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1") << call;
        bool tableCallFailed = (std::string(call) == "queryGidTable" && query == Query::kGidTable) ||
                               (std::string(call) == "queryGidEx" && query == Query::kGidEx) ||
                               (std::string(call) == "queryGid" && query == Query::kPlain);
        if (tableCallFailed) {
          EXPECT_THAT(joinedWarnings(r), HasSubstr("failed: Input/output error; using sysfs's GID values"));
        }
      }
    }
  }
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
