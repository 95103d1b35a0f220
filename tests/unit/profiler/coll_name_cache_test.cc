// A Coll event's names (as NCCL 2.24-2.31 spell them) to the timing key the tuner's statistics join on, and the
// cache that remembers them by address: NCCL passes the same static strings for every collective.
#include "profiler/coll_name_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace nccl_roce::profiler {
namespace {

constexpr int kAllGather = 2, kAllReduce = 4, kRing = 1, kTree = 0, kLL = 0, kSimple = 2;

uint64_t keyOf(int collective, int algorithm, int protocol, uint8_t bucket = 0, uint8_t channels = 0) {
  return TimingKey{static_cast<int8_t>(collective), bucket, static_cast<int8_t>(algorithm),
                   static_cast<int8_t>(protocol), channels, TimingSource::kKernelGpu}
      .packed();
}

TEST(CollShape, ResolvesNcclsNamesToTheTunersKey) {
  CollShape s = resolveCollShape("AllReduce", "ncclBfloat16", "RING", "LL", 16);
  EXPECT_EQ(s.key, keyOf(kAllReduce, kRing, kLL));
  EXPECT_EQ(s.elementBytes, 2u);
  // 32768 bf16 = 64 KiB on 4 channels: bucket 16.
  EXPECT_EQ(s.keyOf(32768, 4), keyOf(kAllReduce, kRing, kLL, 16, 4));
  EXPECT_EQ(TimingKey::unpack(s.keyOf(32768, 4)).bucket, 16);
}

TEST(CollShape, AllGatherIsSizedByItsTotalAsTheTunerCountsIt) {
  CollShape s = resolveCollShape("AllGather", "ncclFloat32", "RING", "SIMPLE", 8);
  EXPECT_EQ(s.key, keyOf(kAllGather, kRing, kSimple));
  EXPECT_EQ(s.elementBytes, 4u * 8u);
  // NCCL 2.26 and older give the profiler no nRanks: such collectives cannot be sized, so they are not timed.
  EXPECT_EQ(resolveCollShape("AllGather", "ncclFloat32", "RING", "SIMPLE", 0).key, 0u);
  EXPECT_NE(resolveCollShape("AllReduce", "ncclFloat32", "RING", "SIMPLE", 0).key, 0u);
}

TEST(CollShape, CollectivesTheTunerNeverSeesAreNotTimed) {
  for (const char* func : {"AllToAll", "SendRecv", "Nonsense"}) {
    CollShape s = resolveCollShape(func, "ncclFloat32", "RING", "LL", 8);
    EXPECT_EQ(s.key, 0u) << func;
    EXPECT_EQ(s.keyOf(1024, 1), 0u) << func;
  }
  EXPECT_EQ(resolveCollShape(nullptr, nullptr, nullptr, nullptr, 8).keyOf(1, 1), 0u);
}

TEST(CollShape, ChannelsAndBucketsKeepTheirOwnFields) {
  CollShape s = resolveCollShape("AllReduce", "ncclUint8", "TREE", "SIMPLE", 2);
  TimingKey k = TimingKey::unpack(s.keyOf(uint64_t{1} << 40, 255));
  EXPECT_EQ(k.collective, kAllReduce);
  EXPECT_EQ(k.bucket, 40);
  EXPECT_EQ(k.algorithm, kTree);
  EXPECT_EQ(k.protocol, kSimple);
  EXPECT_EQ(k.channels, 255);
  EXPECT_EQ(k.source, TimingSource::kKernelGpu);
}

TEST(CollNameCache, AnswersAsResolvingByNameDoes) {
  CollNameCache cache(16);
  const char* funcs[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AllToAll"};
  const char* types[] = {"ncclFloat32", "ncclBfloat16"};
  const char* algos[] = {"RING", "TREE", "NVLS"};
  const char* protos[] = {"LL", "LL128", "SIMPLE"};
  for (int round = 0; round < 3; ++round) {  // 90 combinations, far more than the cache holds: misses and hits
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
  EXPECT_EQ(cache.lookup(nullptr, nullptr, nullptr, nullptr).key, 0u);
}

TEST(CollNameCache, FindAnswersWhatIsCachedAndLookupCachesWhatItResolves) {
  static const char kFunc[] = "AllReduce", kType[] = "ncclFloat32", kAlgo[] = "RING", kLowLatency[] = "LL",
                    kSimpleProto[] = "SIMPLE";
  CollNameCache cache(16);
  EXPECT_EQ(cache.find(kFunc, kType, kAlgo, kLowLatency), nullptr) << "nothing resolved yet";
  const CollShape& ll = cache.lookup(kFunc, kType, kAlgo, kLowLatency);
  const CollShape* found = cache.find(kFunc, kType, kAlgo, kLowLatency);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->key, keyOf(kAllReduce, kRing, kLL));
  EXPECT_EQ(found, &ll);
  cache.lookup(kFunc, kType, kAlgo, kSimpleProto);
  // Whichever was asked last, both are found: the previous event's entry is only tried first.
  for (int i = 0; i < 3; ++i) {
    ASSERT_NE(cache.find(kFunc, kType, kAlgo, kLowLatency), nullptr);
    ASSERT_NE(cache.find(kFunc, kType, kAlgo, kSimpleProto), nullptr);
  }
  EXPECT_EQ(cache.find(kFunc, kType, kAlgo, kSimpleProto)->key, keyOf(kAllReduce, kRing, kSimple));
  EXPECT_EQ(cache.find(kFunc, kType, kAlgo, kLowLatency)->key, keyOf(kAllReduce, kRing, kLL));
}

// NCCL's names are static strings, so an address answers for its text. Rewriting a string in place shows
// whether the cache answered (the old text) or resolved again (the new).
TEST(CollNameCache, RemembersByAddressAndKeepsTwoCombinationsThatHashAlike) {
  char algo[8] = "RING";
  std::vector<std::string> others(64, "SIMPLE");  // 64 addresses: some land in the same set as the first
  for (const std::string& other : others) {
    CollNameCache cache(16);
    EXPECT_EQ(cache.lookup("AllReduce", "ncclFloat32", algo, "LL").key, keyOf(kAllReduce, kRing, kLL));
    std::strcpy(algo, "TREE");
    cache.lookup("AllReduce", "ncclFloat32", "RING", other.c_str());  // evicts nothing: two ways per set
    EXPECT_EQ(cache.lookup("AllReduce", "ncclFloat32", algo, "LL").key, keyOf(kAllReduce, kRing, kLL))
        << "answered from the cache, by address";
    std::strcpy(algo, "RING");
  }
}

}  // namespace
}  // namespace nccl_roce::profiler
