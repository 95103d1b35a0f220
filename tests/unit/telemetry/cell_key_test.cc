// The one key of a decision or timing cell: what the tuner's decision counts and the profiler's timings are
// counted under, and how its chunk size reads as a label.
#include "telemetry/cell_key.h"

#include <gtest/gtest.h>

#include <set>

#include "common/flat_map.h"
#include "telemetry/chunk_size.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::telemetry {
namespace {

constexpr int kAllReduce = 4, kRing = 1, kLL = 0, kSimple = 2;

TEST(CellKey, SizeBucketsArePowersOfTwo) {
  EXPECT_EQ(bucketLabel(16), "64K-128K");
  EXPECT_EQ(bucketLabel(0), "0-2");
  EXPECT_EQ(bucketLabel(63), "8E-16E");
  EXPECT_EQ(bucketMinBytes(16), 65536u);
  EXPECT_EQ(bucketMaxBytes(16), 131071u);
  EXPECT_EQ(bucketMaxBytes(63), UINT64_MAX);
  EXPECT_EQ(sizeBucket(0), 0);
  EXPECT_EQ(sizeBucket(1), 0);
  EXPECT_EQ(sizeBucket(4096), 12);
  EXPECT_EQ(sizeBucket(8191), 12);
  EXPECT_EQ(sizeBucket(UINT64_MAX), 63);
  EXPECT_EQ(cellKey(kAllReduce, 65536, kRing, kLL, 4).bucket, 16);
}

TEST(CellKey, ChunkSizeLabelsAreTheStatisticsFilesForm) {
  EXPECT_EQ(chunkSizeLabel(0), "0");
  EXPECT_EQ(chunkSizeLabel(262144), "262144");
  EXPECT_EQ(chunkSizeLabel(ChunkSize::scaled(1).code()), "x2");
  EXPECT_EQ(chunkSizeLabel(ChunkSize::scaled(-3).code()), "x0.125");
  for (uint32_t code : {0u, 262144u, ChunkSize::scaled(1).code(), ChunkSize::scaled(-3).code()}) {
    EXPECT_EQ(chunkSizeFromLabel(chunkSizeLabel(code)), code);
  }
  for (const char* other : {"", "256K", "100", "nccl", "x3", "-16", "262144 "}) {
    EXPECT_EQ(chunkSizeFromLabel(other), std::nullopt) << other;
  }
}

// Every field tells keys apart, in equality, order and the hash maps that count them.
TEST(CellKey, EveryFieldTellsKeysApart) {
  CellKey base = cellKey(kAllReduce, 4096, kRing, kLL, 2);
  std::vector<CellKey> keys(7, base);
  keys[1].collective = 2;
  keys[2].bucket = 13;
  keys[3].choice.algorithm = 0;
  keys[4].choice.protocol = kSimple;
  keys[5].choice.channels = 4;
  keys[6].choice.chunkSize = 65536;
  CellKey timed = base;
  timed.source = TimingSource::kKernelGpu;
  keys.push_back(timed);
  std::set<CellKey> ordered(keys.begin(), keys.end());
  EXPECT_EQ(ordered.size(), keys.size());
  FlatMap<CellKey, int, CellKeyHash> counts;
  for (const CellKey& k : keys) ++counts[k];
  ++counts[base];
  EXPECT_EQ(counts.size(), keys.size());
  EXPECT_EQ(counts.at(base), 2);
}

TEST(CellKey, ValuesOutsideNcclsRangesAreUnknown) {
  CellKey key = cellKey(99, 8, 12, 5, 300);
  EXPECT_EQ(key.collective, -1);
  EXPECT_EQ(key.choice.algorithm, -1);
  EXPECT_EQ(key.choice.protocol, -1);
  EXPECT_EQ(key.choice.channels, 255);
}

}  // namespace
}  // namespace nccl_roce::telemetry
