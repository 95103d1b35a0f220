// Fault injection through the resolver's seams: every sysfs read of a realistic resolution failing in turn
// with each errno a kernel gives, libibverbs present but each call failing, getifaddrs failing. Each run must
// end in the documented fallback: the entry concerned is skipped with its reason, other ports are unaffected,
// and a resolution that selects nothing says why in one line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <set>

#include "tests/fixtures/resolver_world.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

// Every path a resolution touched (read, listed, followed or tested), relative to the sysfs root.
std::set<std::string> pathsRead(const gid::FileRecord& record) {
  std::set<std::string> paths = record.existing;
  for (const auto& [path, content] : record.files) paths.insert(path);
  for (const auto& [path, entries] : record.directories) paths.insert(path);
  for (const auto& [path, target] : record.links) paths.insert(path);
  for (const auto& [path, error] : record.errors) paths.insert(path);
  return paths;
}

void twoRails(ResolverWorld& w) {
  for (int i = 0; i < 2; ++i) {
    std::string net = "net" + std::to_string(i + 1);
    w.sys.netdev(net);
    w.address(net, "10.0." + std::to_string(i) + ".5/24");
    w.sys.device("mlx5_" + std::to_string(i)).pci("0000:1" + std::to_string(i) + ":00.1", 0, true);
    w.sys.device("mlx5_" + std::to_string(i))
        .port(1)
        .roce(400)
        .tableLength(8)
        .linkLocalGids(net)
        .ipv4Pair(2, "10.0." + std::to_string(i) + ".5", net);
  }
}

TEST(FaultInjection, EverySysfsReadFailingInTurnEndsInTheDocumentedFallback) {
  ResolverWorld w;
  twoRails(w);
  gid::RecordingFileAccess recorder(gid::realFileAccess(), w.sys.root());
  auto healthy = w.resolve(recorder);
  ASSERT_TRUE(healthy.anySelected());
  std::set<std::string> paths = pathsRead(recorder.record());
  ASSERT_GE(paths.size(), 20u);
  int runs = 0;
  for (const std::string& path : paths) {
    for (int err : {EINVAL, EACCES, EIO, ENOENT}) {
      FaultyFileAccess files;
      files.fail(path, err);
      gid::Resolution r = w.resolve(files);
      ++runs;
      SCOPED_TRACE(path + " failing with errno " + std::to_string(err));
      EXPECT_EQ(r.anySelected(), r.error.empty());
      if (!r.anySelected()) {
        EXPECT_FALSE(r.error.empty());
        EXPECT_EQ(r.error.find('\n'), std::string::npos) << "one line";
      }
      // A fault confined to one rail never costs the other rail.
      for (int rail = 0; rail < 2; ++rail) {
        std::string otherRail = "/mlx5_" + std::to_string(1 - rail) + "/";
        if (path.find(otherRail) != std::string::npos) {
          EXPECT_TRUE(portOf(r, "mlx5_" + std::to_string(rail), 1).selected);
        }
      }
      // Losing the port's state or its own GID entry takes the port out, with the reason.
      if (path.find("mlx5_0/ports/1/state") != std::string::npos) {
        EXPECT_FALSE(portOf(r, "mlx5_0", 1).selected);
        EXPECT_THAT(reasonText(portOf(r, "mlx5_0", 1)), HasSubstr("port state"));
      }
    }
  }
  EXPECT_EQ(runs, static_cast<int>(paths.size()) * 4);
}

TEST(FaultInjection, GetifaddrsFailingFallsBackToNetdevVisibilityWithAWarning) {
  ResolverWorld w;
  twoRails(w);
  gid::SysfsReader reader(w.sys.root());
  gid::KernelAddressSource failing([](struct ifaddrs**) {
    errno = ENOMEM;
    return -1;
  });
  gid::ResolverSources sources;
  sources.sysfs = &reader;
  sources.addresses = &failing;
  sources.addressSourceName = "getifaddrs";
  gid::Resolution r = gid::resolve(sources, w.env);
  EXPECT_TRUE(r.anySelected());
  EXPECT_EQ(r.addressSource, "unavailable");
  EXPECT_THAT(joinedWarnings(r), HasSubstr("addresses unknown (I/O error: getifaddrs: Cannot allocate memory)"));
}

}  // namespace
}  // namespace nccl_roce::testing
