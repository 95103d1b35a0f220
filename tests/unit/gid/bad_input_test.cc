// Odd sysfs never crashes, hangs or aborts the scan: each bad entry becomes a reason and is skipped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fixtures/resolver_world.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

// One healthy rail that must survive whatever its neighbours hold.
void addHealthyRail(ResolverWorld& w) {
  w.sys.netdev("net1");
  w.address("net1", "10.0.0.1/24");
  w.sys.device("mlx5_9").port(1).roce(400).tableLength(4).linkLocalGids("net1").ipv4Pair(2, "10.0.0.1", "net1");
}

TEST(BadInput, GarbageInStateFiles) {
  ResolverWorld w;
  addHealthyRail(w);
  w.sys.device("mlx5_0").port(1).roce(400).state("\x01\x02 garbage").physState("five");
  auto r = w.resolve();
  EXPECT_TRUE(portOf(r, "mlx5_9", 1).selected);
  EXPECT_EQ(reasonText(portOf(r, "mlx5_0", 1)), "port state '\x01\x02 garbage' not understood");
}

TEST(BadInput, HugeFilesAreRefusedNotTruncated) {
  ResolverWorld w;
  addHealthyRail(w);
  auto port = w.sys.device("mlx5_0").port(1).roce(400).tableLength(4);
  port.file("state", "4: ACTIVE" + std::string(1 << 20, ' '));
  auto r = w.resolve();
  EXPECT_TRUE(portOf(r, "mlx5_9", 1).selected);
  EXPECT_EQ(reasonText(portOf(r, "mlx5_0", 1)), "port state larger than a sysfs attribute can be");
}

TEST(BadInput, SymlinkLoopsAreSkipped) {
  ResolverWorld w;
  addHealthyRail(w);
  auto port = w.sys.device("mlx5_0").port(1).roce(400).tableLength(4);
  std::string gids = w.sys.root() + "/" + port.dir() + "/gids/";
  ::unlink((gids + "3").c_str());
  ASSERT_EQ(::symlink((gids + "3").c_str(), (gids + "3").c_str()), 0);
  std::string dev = w.sys.root() + "/class/infiniband/mlx5_1";
  ASSERT_EQ(::symlink(dev.c_str(), dev.c_str()), 0);
  auto r = w.resolve();
  EXPECT_TRUE(portOf(r, "mlx5_9", 1).selected);
  EXPECT_FALSE(portOf(r, "mlx5_0", 1).selected);
  EXPECT_THAT(reasonText(portOf(r, "mlx5_1", 0)), HasSubstr("ports: unreadable"));
}

TEST(BadInput, FifosDoNotHangTheScan) {
  ResolverWorld w;
  addHealthyRail(w);
  auto port = w.sys.device("mlx5_0").port(1).roce(400);
  std::string rate = w.sys.root() + "/" + port.dir() + "/rate";
  ::unlink(rate.c_str());
  ASSERT_EQ(::mkfifo(rate.c_str(), 0600), 0);
  auto r = w.resolve();
  EXPECT_TRUE(portOf(r, "mlx5_9", 1).selected);
}

TEST(BadInput, NonUtf8AndListBreakingDeviceNamesAreReportedNotListed) {
  ResolverWorld w;
  addHealthyRail(w);
  w.sys.device("mlx5_\xff\xfe").port(1).roce(400);
  w.sys.device("mlx5,0").port(1).roce(400);
  w.snapshotJsonIsExact = false;  // a snapshot file carries the name with its bytes replaced
  auto r = w.resolve();
  EXPECT_EQ(envOf(r, "NCCL_IB_HCA"), "=mlx5_9:1");
  EXPECT_EQ(reasonText(portOf(r, "mlx5,0", 0)), "name has characters NCCL_IB_HCA cannot carry");
}

TEST(BadInput, PermissionDeniedAndIoErrorsOnGidAttributes) {
  ResolverWorld w;
  w.sys.netdev("net1");
  w.address("net1", "10.0.0.1/24");
  w.sys.device("mlx5_0")
      .port(1)
      .roce(400)
      .tableLength(6)
      .ipv4Pair(2, "10.0.0.1", "net1")
      .ipv4Pair(4, "10.0.0.1", "net1");
  FaultyFileAccess files;
  files.fail("ports/1/gid_attrs/ndevs/3", EACCES);
  files.fail("ports/1/gid_attrs/types/5", EIO);
  auto r = w.resolve(files);
  EXPECT_FALSE(r.anySelected());
  EXPECT_EQ(reasonText(portOf(r, "mlx5_0", 1)),
            "no qualifying RoCE v2 GID (2 RoCE v1, 1 whose netdev is unreadable, 1 whose type is unreadable)");
}

TEST(BadInput, OversizedGidTablesAreRefused) {
  ResolverWorld w;
  addHealthyRail(w);
  auto port = w.sys.device("mlx5_0").port(1).roce(400);
  port.tableLength(4100);
  auto r = w.resolve();
  EXPECT_TRUE(portOf(r, "mlx5_9", 1).selected);
  EXPECT_EQ(reasonText(portOf(r, "mlx5_0", 1)), "GID table unreadable");
}

TEST(BadInput, UnlistableNetdevsMeanNoRoceGidCanQualify) {
  ResolverWorld w;
  addHealthyRail(w);
  FaultyFileAccess files;
  files.fail("/class/net", EACCES);
  auto r = w.resolve(files);
  EXPECT_FALSE(r.anySelected());
  EXPECT_THAT(joinedWarnings(r), HasSubstr("cannot list this namespace's netdevs"));
}

TEST(ProcessRoot, SysfsRootFromTheEnvironmentIsIgnoredWhenPrivileged) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_SYSFS_ROOT", "/tmp/fake"}});
  std::string note;
  EXPECT_EQ(gid::sysfsRootFor(env, &note), "/tmp/fake");
  EXPECT_TRUE(note.empty());
  env.setPrivileged(true);
  EXPECT_EQ(gid::sysfsRootFor(env, &note), "/sys");
  EXPECT_EQ(note, "NCCL_ROCE_SYSFS_ROOT ignored in a privileged (setuid) process");
  EXPECT_EQ(gid::sysfsRootFor(MapEnvironment(), nullptr), "/sys");
}

TEST(ProcessRoot, ResolveThisProcessReadsTheTreeNamedByTheEnvironment) {
  ResolverWorld w;
  addHealthyRail(w);
  w.env.set("NCCL_ROCE_SYSFS_ROOT", w.sys.root());
  auto r = gid::resolveThisProcess(w.env, nullLogger());
  ASSERT_TRUE(r.anySelected()) << r.error;
  EXPECT_EQ(r.sysfsRoot, w.sys.root());
  EXPECT_EQ(r.addressSource, "none (GIDs matched by netdev)") << "a substitute tree is not this machine";
  EXPECT_THAT(r.verbsSource, HasSubstr("is not this machine's"));
  EXPECT_EQ(envOf(r, "NCCL_IB_GID_INDEX"), "3");
}

}  // namespace
}  // namespace nccl_roce::testing
