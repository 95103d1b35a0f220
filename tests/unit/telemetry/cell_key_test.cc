// The one key of a decision or timing cell and its JSON form in the statistics file: what the tuner's
// decision counts and the profiler's timings write, and what `nccl-roce ab` reads back.
#include "telemetry/cell_key.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "common/flat_map.h"
#include "telemetry/chunk_size.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::telemetry {
namespace {

constexpr int kAllReduce = 4, kRing = 1, kLL = 0, kSimple = 2;

CellKey readBack(const CellKey& key) {
  nlohmann::ordered_json line;
  writeCellKey(key, line);
  CellKey back;
  Status read = readCellKey(nlohmann::json::parse(line.dump()), &back);
  EXPECT_TRUE(read.isOk()) << read.toString() << " " << line.dump();
  return back;
}

TEST(CellKey, SizeBucketsArePowersOfTwo) {
  EXPECT_EQ(sizeBucket(0), 0);
  EXPECT_EQ(sizeBucket(1), 0);
  EXPECT_EQ(sizeBucket(4096), 12);
  EXPECT_EQ(sizeBucket(8191), 12);
  EXPECT_EQ(sizeBucket(UINT64_MAX), 63);
  EXPECT_EQ(cellKey(kAllReduce, 65536, kRing, kLL, 4).bucket, 16);
}

TEST(CellKey, WritesTheStatisticsFileMembers) {
  nlohmann::ordered_json line;
  writeCellKey(cellKey(kAllReduce, 65536, kRing, kLL, 4), line);
  EXPECT_EQ(line.dump(), R"({"collective":"AllReduce","bucket":"64K-128K","size_min":65536,"size_max":131071,)"
                         R"("algorithm":"Ring","protocol":"LL","channels":4})");
  nlohmann::ordered_json unknown;
  writeCellKey(cellKey(kAllReduce, 0, -1, -1, 0, 524288), unknown);
  EXPECT_TRUE(unknown["algorithm"].is_null());
  EXPECT_TRUE(unknown["protocol"].is_null());
  EXPECT_EQ(unknown["bucket"], "0-2");
  EXPECT_EQ(unknown["chunk_size"], 524288) << "written when it is not NCCL's own";
}

TEST(CellKey, ReadsBackWhatItWrote) {
  for (const CellKey& key : {cellKey(kAllReduce, 65536, kRing, kLL, 4), cellKey(2, 1 << 20, -1, kSimple, 0),
                             cellKey(kAllReduce, 1, kRing, -1, 64, 1 << 20)}) {
    EXPECT_EQ(readBack(key), key);
  }
  CellKey timed = cellKey(kAllReduce, 4096, kRing, kLL, 2);
  timed.source = TimingSource::kKernelGpuBatch;
  nlohmann::ordered_json line;
  writeCellKey(timed, line);
  line["timing_source"] = timingSourceName(timed.source);
  CellKey back;
  ASSERT_TRUE(readCellKey(nlohmann::json::parse(line.dump()), &back).isOk());
  EXPECT_EQ(back, timed);
}

// A metric label carries the chunk size in the statistics file's form, and only that form reads back.
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

// Files written before the shared key: no chunk_size (NCCL's own), and "any" where a timing's algorithm or
// protocol was unknown.
TEST(CellKey, ReadsWhatEarlierVersionsWrote) {
  auto line = nlohmann::json::parse(R"({"collective":"AllReduce","bucket":"64K-128K","size_min":65536,)"
                                    R"("size_max":131071,"algorithm":"any","protocol":"LL","channels":2,)"
                                    R"("rule":null,"timing_source":"kernel_gpu"})");
  CellKey key;
  ASSERT_TRUE(readCellKey(line, &key).isOk());
  EXPECT_EQ(key.algorithm, -1);
  EXPECT_EQ(key.chunkSize, 0u);
  EXPECT_EQ(key.source, TimingSource::kKernelGpu);
}

TEST(CellKey, ABadMemberIsAnErrorNamingIt) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"size_min":1,"channels":0})", "no collective"},
      {R"({"collective":"AllToAll","size_min":1,"channels":0})", "unknown collective 'AllToAll'"},
      {R"({"collective":"AllReduce","channels":0})", "no size_min"},
      {R"({"collective":"AllReduce","size_min":1,"algorithm":"Mesh","channels":0})", "algorithm"},
      {R"({"collective":"AllReduce","size_min":1,"protocol":7,"channels":0})", "protocol"},
      {R"({"collective":"AllReduce","size_min":1,"channels":65})", "channels"},
      {R"({"collective":"AllReduce","size_min":1,"channels":1,"chunk_size":-4})", "chunk_size"},
      {R"({"collective":"AllReduce","size_min":1,"channels":1,"timing_source":"cpu"})", "timing_source"},
  };
  for (const auto& [text, what] : cases) {
    CellKey key;
    Status read = readCellKey(nlohmann::json::parse(text), &key);
    EXPECT_FALSE(read.isOk()) << text;
    EXPECT_NE(read.message().find(what), std::string::npos) << read.message();
  }
}

// Every field tells keys apart, in equality, order and the hash maps that count them.
TEST(CellKey, EveryFieldTellsKeysApart) {
  CellKey base = cellKey(kAllReduce, 4096, kRing, kLL, 2);
  std::vector<CellKey> keys(7, base);
  keys[1].collective = 2;
  keys[2].bucket = 13;
  keys[3].algorithm = 0;
  keys[4].protocol = kSimple;
  keys[5].channels = 4;
  keys[6].chunkSize = 65536;
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
  EXPECT_EQ(key.algorithm, -1);
  EXPECT_EQ(key.protocol, -1);
  EXPECT_EQ(key.channels, 255);
}

}  // namespace
}  // namespace nccl_roce::telemetry
