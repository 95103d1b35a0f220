// The resolver reached from several communicators at once (env, net and tuner init on different threads):
// every call reads the machine on its own and gets the same answer; nothing is shared but read-only state.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tests/fixtures/resolver_world.h"

namespace nccl_roce::testing {
namespace {

TEST(Concurrency, ResolvingFromManyThreadsAtOnceGivesOneAnswer) {
  ResolverWorld w;
  for (int i = 0; i < 4; ++i) {
    std::string net = "net" + std::to_string(i);
    w.sys.netdev(net);
    w.sys.device("mlx5_" + std::to_string(i))
        .port(1)
        .roce(400)
        .tableLength(8)
        .linkLocalGids(net)
        .ipv4Pair(2 + 2 * (i % 2), "10.0." + std::to_string(i) + ".1", net);
  }
  w.env.set("NCCL_ROCE_SYSFS_ROOT", w.sys.root());
  gid::Resolution reference = gid::resolveThisProcess(w.env, nullLogger());
  ASSERT_TRUE(reference.anySelected()) << reference.error;
  std::vector<std::thread> threads;
  std::vector<int> same(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      int ok = 1;
      for (int i = 0; i < 20; ++i) {
        gid::Resolution r = gid::resolveThisProcess(w.env, nullLogger());
        ok &= r.error == reference.error && r.env.size() == reference.env.size();
        for (size_t k = 0; k < r.env.size() && k < reference.env.size(); ++k)
          ok &= r.env[k].value == reference.env[k].value;
      }
      same[static_cast<size_t>(t)] = ok;
    });
  }
  for (auto& t : threads) t.join();
  for (int ok : same) EXPECT_EQ(ok, 1);
}

}  // namespace
}  // namespace nccl_roce::testing
