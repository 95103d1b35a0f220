// A Coll event's names (as NCCL 2.24-2.31 spell them) to the key the tuner's decision counts join on, and the
// cache that remembers them by their text.
#include "profiler/coll_name_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace nccl_roce::profiler {
namespace {

using telemetry::CellKey;
using telemetry::TimingSource;

constexpr int kAllGather = 2, kAllReduce = 4, kRing = 1, kTree = 0, kLL = 0, kSimple = 2;
constexpr telemetry::TimingSource kGpu = telemetry::TimingSource::kKernelGpu;

telemetry::CellKey keyOf(int collective, int algorithm, int protocol, uint64_t bytes, int channels) {
  telemetry::CellKey key = telemetry::cellKey(collective, bytes, algorithm, protocol, channels);
  key.source = kGpu;
  return key;
}

TEST(CollShape, ResolvesNcclsNamesToTheTunersKey) {
  CollShape s = resolveCollShape("AllReduce", "ncclBfloat16", "RING", "LL", 16);
  EXPECT_TRUE(s.timed());
  EXPECT_EQ(s.elementBytes, 2u);
  // 32768 bf16 = 64 KiB on 4 channels: bucket 16.
  EXPECT_EQ(s.keyOf(32768, 4, kGpu), keyOf(kAllReduce, kRing, kLL, 65536, 4));
  EXPECT_EQ(s.keyOf(32768, 4, kGpu).bucket, 16);
}

TEST(CollShape, AllGatherIsSizedByItsTotalAsTheTunerCountsIt) {
  CollShape s = resolveCollShape("AllGather", "ncclFloat32", "RING", "SIMPLE", 8);
  EXPECT_EQ(s.elementBytes, 4u * 8u);
  EXPECT_EQ(s.keyOf(1024, 1, kGpu), keyOf(kAllGather, kRing, kSimple, 1024 * 32, 1));
  // NCCL 2.26 and older give the profiler no nRanks: such collectives cannot be sized, so they are not timed.
  EXPECT_FALSE(resolveCollShape("AllGather", "ncclFloat32", "RING", "SIMPLE", 0).timed());
  EXPECT_TRUE(resolveCollShape("AllReduce", "ncclFloat32", "RING", "SIMPLE", 0).timed());
}

TEST(CollShape, CollectivesTheTunerNeverSeesAreNotTimed) {
  for (const char* func : {"AllToAll", "SendRecv", "Nonsense"}) {
    EXPECT_FALSE(resolveCollShape(func, "ncclFloat32", "RING", "LL", 8).timed()) << func;
  }
  EXPECT_FALSE(resolveCollShape(nullptr, nullptr, nullptr, nullptr, 8).timed());
}

TEST(CollShape, AnUnknownAlgorithmOrProtocolIsTimedAsUnknown) {
  CollShape s = resolveCollShape("AllReduce", "ncclUint8", "MESH", "LL256", 2);
  EXPECT_TRUE(s.timed());
  telemetry::CellKey k = s.keyOf(uint64_t{1} << 40, 64, kGpu);
  EXPECT_EQ(k.collective, kAllReduce);
  EXPECT_EQ(k.bucket, 40);
  EXPECT_EQ(k.choice.algorithm, -1);
  EXPECT_EQ(k.choice.protocol, -1);
  EXPECT_EQ(k.choice.channels, 64);
  EXPECT_EQ(resolveCollShape("AllReduce", "ncclUint8", "TREE", "SIMPLE", 2).keyOf(8, 1, kGpu).choice.algorithm, kTree);
}

TEST(CollNameCache, AnswersAsResolvingByNameDoes) {
  CollNameCache cache(16);
  const char* funcs[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AllToAll"};
  const char* types[] = {"ncclFloat32", "ncclBfloat16"};
  const char* algos[] = {"RING", "TREE", "NVLS"};
  const char* protos[] = {"LL", "LL128", "SIMPLE"};
  for (int round = 0; round < 3; ++round) {  // 90 combinations, more than the cache holds: misses and hits
    for (const char* f : funcs) {
      for (const char* t : types) {
        for (const char* a : algos) {
          for (const char* p : protos) {
            CollShape want = resolveCollShape(f, t, a, p, 16);
            const CollShape& got = cache.lookup(f, t, a, p);
            EXPECT_EQ(got.key, want.key) << f << t << a << p;
            EXPECT_EQ(got.elementBytes, want.elementBytes) << f << t << a << p;
          }
        }
      }
    }
  }
  EXPECT_FALSE(cache.lookup(nullptr, nullptr, nullptr, nullptr).timed());
}

// NCCL does not promise static strings: a buffer rewritten in place between two Coll events must give the
// new text's key, not the one cached for the old text at the same address.
TEST(CollNameCache, ComparesTheNamesNotTheirAddresses) {
  char algo[8] = "RING";
  char proto[8] = "LL";
  CollNameCache cache(16);
  EXPECT_EQ(cache.lookup("AllReduce", "ncclFloat32", algo, proto).keyOf(1, 1, kGpu).choice.algorithm, kRing);
  std::strcpy(algo, "TREE");
  EXPECT_EQ(cache.lookup("AllReduce", "ncclFloat32", algo, proto).keyOf(1, 1, kGpu).choice.algorithm, kTree);
  std::strcpy(proto, "SIMPLE");
  EXPECT_EQ(cache.lookup("AllReduce", "ncclFloat32", algo, proto).keyOf(1, 1, kGpu).choice.protocol, kSimple);
  std::strcpy(algo, "RING");
  std::strcpy(proto, "LL");
  const CollShape& again = cache.lookup("AllReduce", "ncclFloat32", algo, proto);
  EXPECT_EQ(again.keyOf(1, 1, kGpu), keyOf(kAllReduce, kRing, kLL, 4, 1)) << "the first text, answered again";
  std::string copy = "AllReduce";
  EXPECT_EQ(&cache.lookup(copy.c_str(), "ncclFloat32", "RING", "LL"), &again) << "the same text elsewhere is a hit";
}

}  // namespace
}  // namespace nccl_roce::profiler
