// A chunk size as policies write it and decision and timing keys carry it.
#include "telemetry/chunk_size.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nccl_roce::telemetry {
namespace {

using ::testing::HasSubstr;

TEST(ChunkSizeText, BytesFactorsAndNcclsOwnReadBackAsWritten) {
  for (const char* text : {"256K", "576000", "16", "2M", "x2", "x4", "x8", "x0.5", "x0.25", "x0.125", "nccl"}) {
    auto parsed = parseChunkSize(text);
    ASSERT_TRUE(parsed.isOk()) << text << ": " << parsed.status().message();
    EXPECT_EQ(formatChunkSize(*parsed), text);
  }
  EXPECT_EQ(parseChunkSize("262144")->bytes, 262144u);
  EXPECT_EQ(formatChunkSize(*parseChunkSize("262144")), "256K") << "the largest exact unit";
  EXPECT_EQ(parseChunkSize("X2")->scaleLog2, 1);
  EXPECT_EQ(parseChunkSize("x0.5")->scaleLog2, -1);
  EXPECT_TRUE(parseChunkSize("NCCL")->isNccl());
}

TEST(ChunkSizeText, ZeroOtherFactorsAndHugeValuesAreRefused) {
  EXPECT_THAT(parseChunkSize("0").status().message(), HasSubstr("write \"nccl\""));
  EXPECT_THAT(parseChunkSize("x1").status().message(), HasSubstr("x0.125, x0.25, x0.5, x2, x4 or x8"));
  EXPECT_THAT(parseChunkSize("x3").status().message(), HasSubstr("not a factor"));
  EXPECT_THAT(parseChunkSize("x16").status().message(), HasSubstr("not a factor"));
  EXPECT_THAT(parseChunkSize("2G").status().message(), HasSubstr("NCCL holds chunk sizes in an int"));
  EXPECT_THAT(parseChunkSize("big").status().message(), HasSubstr("a chunk size is bytes such as \"256K\""));
}

TEST(ChunkSizeCode, EveryChunkSizeAPolicyCanHoldRoundTripsThroughItsCode) {
  EXPECT_EQ(ChunkSize::nccl().code(), 0u);
  EXPECT_EQ(ChunkSize::ofBytes(262144).code(), 262144u);
  for (int log2 = -kMaxChunkScaleLog2; log2 <= kMaxChunkScaleLog2; ++log2) {
    if (log2 == 0) continue;
    ChunkSize scaled = ChunkSize::scaled(log2);
    EXPECT_EQ(scaled.code() % 2, 1u);
    EXPECT_EQ(ChunkSize::fromCode(scaled.code()), scaled);
  }
  for (uint64_t bytes : {16u, 1920u, 576000u, 2097152u}) {
    EXPECT_EQ(ChunkSize::fromCode(ChunkSize::ofBytes(bytes).code()), ChunkSize::ofBytes(bytes));
  }
  EXPECT_TRUE(ChunkSize::fromCode(7 * 2 + 1 + 2).isNccl()) << "a factor code past x8";
  EXPECT_TRUE(ChunkSize::fromCode(24).isNccl()) << "not a multiple of 16: no chunk size a policy holds";
}

}  // namespace
}  // namespace nccl_roce::telemetry
