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

// Records the path of every read the resolver makes.
class RecordingFiles final : public gid::FileAccess {
 public:
  StatusOr<std::string> read(const std::string& path, size_t maxBytes) const override {
    paths.insert(path);
    return gid::realFileAccess().read(path, maxBytes);
  }
  StatusOr<std::vector<std::string>> list(const std::string& path, size_t maxEntries) const override {
    paths.insert(path);
    return gid::realFileAccess().list(path, maxEntries);
  }
  StatusOr<std::string> readLink(const std::string& path) const override { return gid::realFileAccess().readLink(path); }
  bool exists(const std::string& path) const override { return gid::realFileAccess().exists(path); }
  mutable std::set<std::string> paths;
};

void twoRails(ResolverWorld& w) {
  for (int i = 0; i < 2; ++i) {
    std::string net = "net" + std::to_string(i + 1);
    w.sys.netdev(net);
    w.address(net, "10.0." + std::to_string(i) + ".5/24");
    w.sys.device("mlx5_" + std::to_string(i)).pci("0000:1" + std::to_string(i) + ":00.1", 0, true);
    w.sys.device("mlx5_" + std::to_string(i)).port(1).roce(400).tableLength(8).linkLocalGids(net).ipv4Pair(
        2, "10.0." + std::to_string(i) + ".5", net);
  }
}

TEST(FaultInjection, EverySysfsReadFailingInTurnEndsInTheDocumentedFallback) {
  ResolverWorld w;
  twoRails(w);
  RecordingFiles recorder;
  auto healthy = w.resolve(recorder);
  ASSERT_TRUE(healthy.anySelected());
  ASSERT_GE(recorder.paths.size(), 20u);
  int runs = 0;
  for (const std::string& path : recorder.paths) {
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
        EXPECT_THAT(portOf(r, "mlx5_0", 1).reason, HasSubstr("port state"));
      }
    }
  }
  EXPECT_EQ(runs, static_cast<int>(recorder.paths.size()) * 4);
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
