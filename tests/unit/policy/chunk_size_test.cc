// chunk_size in policies: what NCCL can use (its bounds, read in NCCL 2.30.2 - 2.31's source),
// and the lint errors that keep a policy from asking NCCL for anything else.
#include "telemetry/chunk_size.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/nccl_chunk_limits.h"
#include "policy/policy_toml.h"

namespace nccl_roce::policy {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int kBroadcast = 0, kAllGather = 2, kAllReduce = 4;
constexpr int kTree = 0, kRing = 1, kCollNetChain = 3, kNvls = 4, kNvlsTree = 5, kPat = 6;
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;

std::vector<std::string> errorsOf(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& e : parsePolicyToml(text, "p.toml").errors) out.push_back(e.toString());
  return out;
}

std::string policyWith(const std::string& rule, const std::string& env = "") {
  return "[policy]\nname = \"p\"\n" + env + "[[rule]]\n" + rule;
}

// The ceilings NCCL's calcCollChunking computes with its default buffers (2.30.2 - 2.31).
TEST(NcclChunkLimits, CeilingsAndGrainsWithNcclsDefaultBuffers) {
  NcclBuffers defaults;
  EXPECT_EQ(chunkGrain(kLL), 16u);
  EXPECT_EQ(chunkGrain(kLL128), 1920u);
  EXPECT_EQ(chunkGrain(kSimple), 512u);
  EXPECT_EQ(maxChunkSize(defaults, kAllReduce, kRing, kLL), 32768u) << "512K / 8 steps, 8 data bytes per 16";
  EXPECT_EQ(maxChunkSize(defaults, kAllReduce, kTree, kLL128), 576000u) << "4915200 / 8 steps / 16 x 15";
  EXPECT_EQ(maxChunkSize(defaults, kAllReduce, kRing, kSimple), 2097152u) << "4M / 8 steps x 4 chunk steps";
  EXPECT_EQ(maxChunkSize(defaults, kAllGather, kRing, kSimple), 2097152u);
  EXPECT_EQ(maxChunkSize(defaults, kBroadcast, kRing, kSimple), 524288u) << "one chunk step for broadcast";
  EXPECT_EQ(maxChunkSize(defaults, kAllReduce, kTree, kSimple), 524288u);
  EXPECT_EQ(maxChunkSize(defaults, kAllGather, kPat, kSimple), 524288u);
  EXPECT_EQ(maxChunkSize(defaults, kAllReduce, kCollNetChain, kSimple), 524288u);
  EXPECT_EQ(maxChunkSize(defaults, kAllReduce, kNvls, kSimple), 131072u) << "one NVLS step";
  EXPECT_EQ(maxChunkSize(defaults, kAllReduce, kNvlsTree, kSimple), 131072u);
  EXPECT_EQ(maxChunkSize(defaults, 5, kRing, kSimple), 0u) << "not a collective NCCL tunes";
  EXPECT_EQ(576000u % 1920u, 0u) << "LL128's ceiling is whole grains";
}

TEST(NcclChunkLimits, BuffersAreReadAsNcclReadsItsVariables) {
  std::map<std::string, std::string> vars{{"NCCL_BUFFSIZE", "0x800000"},
                                          {"NCCL_LL_BUFFSIZE", "4M"},  // strtoll reads 4
                                          {"NCCL_NVLS_CHUNKSIZE", "262144"},
                                          {"NCCL_LL128_BUFFSIZE", "99999999999999999999"}};  // ERANGE: default
  NcclBuffers b = NcclBuffers::from([&](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  EXPECT_EQ(b.protocolBytes[kSimple], 8 << 20);
  EXPECT_EQ(b.protocolBytes[kLL], 4);
  EXPECT_EQ(b.protocolBytes[kLL128], 4915200);
  EXPECT_EQ(b.nvlsChunk, 262144);
  EXPECT_EQ(maxChunkSize(b, kAllReduce, kRing, kSimple), 4u << 20);
  EXPECT_EQ(maxChunkSize(b, kAllReduce, kRing, kLL), 0u) << "a 4-byte LL buffer holds no chunk";
  ChunkCeilings ceilings(b);
  EXPECT_EQ(ceilings.of(kAllReduce, kRing, kSimple), 4u << 20) << "the same, looked up";
  EXPECT_EQ(ceilings.of(kAllReduce, 7, kSimple), 0u);
  EXPECT_EQ(ChunkCeilings().of(kAllReduce, kRing, kSimple), 0u);
}

TEST(NcclChunkLimits, WhatIsServedIsUsableOrNcclsOwn) {
  ChunkCeilings d{NcclBuffers{}};
  bool refused = true;
  EXPECT_EQ(chunkSizeToServe(telemetry::ChunkSize::ofBytes(262144), 524288, d, kAllReduce, kRing, kSimple, &refused),
            262144u);
  EXPECT_FALSE(refused);
  EXPECT_EQ(chunkSizeToServe(telemetry::ChunkSize::ofBytes(262144), 32768, d, kAllReduce, kRing, kLL, &refused),
            32768u);
  EXPECT_TRUE(refused) << "above LL's ceiling: NCCL's own";
  EXPECT_EQ(chunkSizeToServe(telemetry::ChunkSize::ofBytes(262144), 131072, d, kAllReduce, kNvls, kSimple, &refused),
            131072u);
  EXPECT_TRUE(refused) << "beyond one NVLS step";
  EXPECT_EQ(chunkSizeToServe(telemetry::ChunkSize::ofBytes(1000), 524288, d, kAllReduce, kRing, kSimple, &refused),
            524288u);
  EXPECT_TRUE(refused) << "not whole grains";
  EXPECT_EQ(chunkSizeToServe(telemetry::ChunkSize::scaled(1), 36000, d, kAllReduce, kTree, kLL128, &refused),
            72000u - 72000u % 1920);
  EXPECT_FALSE(refused) << "NCCL's Tree/LL128 halving gives 36000: x2 rounded down to whole grains";
  EXPECT_EQ(chunkSizeToServe(telemetry::ChunkSize::scaled(2), 1048576, d, kAllReduce, kRing, kSimple, &refused),
            1048576u);
  EXPECT_TRUE(refused) << "x4 of 1M is past Ring/Simple's 2M";
  EXPECT_EQ(chunkSizeToServe(telemetry::ChunkSize::scaled(-3), 64, d, kAllReduce, kRing, kLL, &refused), 64u);
  EXPECT_TRUE(refused) << "8 bytes: below LL's grain";
  EXPECT_EQ(chunkSizeToServe(telemetry::ChunkSize::nccl(), 12345, d, kAllReduce, kRing, kSimple, &refused), 12345u);
  EXPECT_FALSE(refused);
}

TEST(ChunkSizeRules, OneValueOrOnePerProtocol) {
  auto doc =
      parsePolicyToml(policyWith("size = \"1M..\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"1M\"\n"
                                 "[[rule]]\nsize = \"..1M\"\nchunk_size = { ll = \"16K\", LL128 = 245760, "
                                 "simple = \"x2\" }\n"),
                      "p.toml");
  ASSERT_TRUE(doc.ok()) << joinErrors(doc.errors);
  const Rule& one = doc.policy->rules[0];
  EXPECT_EQ(one.chunkSizes, ChunkSizes::all(telemetry::ChunkSize::ofBytes(1 << 20)));
  const Rule& table = doc.policy->rules[1];
  EXPECT_EQ(table.chunkSizes.forProtocol(kLL), telemetry::ChunkSize::ofBytes(16384));
  EXPECT_EQ(table.chunkSizes.forProtocol(kLL128), telemetry::ChunkSize::ofBytes(245760));
  EXPECT_EQ(table.chunkSizes.forProtocol(kSimple), telemetry::ChunkSize::scaled(1));
}

TEST(ChunkSizeRules, LintRefusesWhatNcclCannotUse) {
  EXPECT_THAT(errorsOf(policyWith("protocol = \"simple\"\nchunk_size = \"256\"\n")),
              ElementsAre("p.toml:5:14: chunk_size 256 (Simple): below Simple's grain of 512 bytes: NCCL would round "
                          "it down to 0"));
  EXPECT_THAT(
      errorsOf(policyWith("protocol = \"simple\"\nchunk_size = 1000\n")),
      ElementsAre(HasSubstr("not a multiple of Simple's grain of 512 bytes (NCCL would round it down to 512)")));
  EXPECT_THAT(errorsOf(policyWith("protocol = \"simple\"\nchunk_size = \"4M\"\n")),
              ElementsAre(HasSubstr("above 2M, the most NCCL can use with Simple for the calls this decides")));
  EXPECT_THAT(errorsOf(policyWith("protocol = \"ll128\"\nchunk_size = \"256K\"\n")),
              ElementsAre(HasSubstr("not a multiple of LL128's grain of 1920 bytes")));
  EXPECT_THAT(errorsOf(policyWith("chunk_size = \"0\"\n")), ElementsAre(HasSubstr("write \"nccl\"")));
  EXPECT_THAT(errorsOf(policyWith("chunk_size = { ll = \"64K\" }\n")),
              ElementsAre(HasSubstr("chunk_size.ll 64K: above 32K, the most NCCL can use with LL")));
}

TEST(ChunkSizeRules, OneValueMustSuitEveryProtocolTheRuleCanRun) {
  // NCCL may pick LL or LL128 for these calls: 256K fits neither, so the rule must say where it applies.
  EXPECT_THAT(
      errorsOf(policyWith("chunk_size = \"256K\"\n")),
      ElementsAre(HasSubstr("chunk_size 256K (LL): above 32K"), HasSubstr("chunk_size 256K (LL128): not a multiple")));
  EXPECT_THAT(errorsOf(policyWith("chunk_size = \"256K\"\n")),
              ElementsAre(HasSubstr("name the protocols it is for (chunk_size = { simple = \"256K\" })"), testing::_));
  EXPECT_THAT(errorsOf(policyWith("chunk_size = { simple = \"256K\" }\n")), IsEmpty());
  EXPECT_THAT(errorsOf(policyWith("chunk_size = \"x2\"\n")), IsEmpty()) << "a factor is checked per call";
}

TEST(ChunkSizeRules, TheCeilingIsThatOfTheCallsTheRuleDecides) {
  // 1M needs Ring's four chunk steps: fine for an all-reduce rule that may run Ring, never for broadcast.
  EXPECT_THAT(errorsOf(policyWith("collective = \"allreduce\"\nprotocol = \"simple\"\nchunk_size = \"1M\"\n")),
              IsEmpty());
  EXPECT_THAT(errorsOf(policyWith("collective = \"broadcast\"\nprotocol = \"simple\"\nchunk_size = \"1M\"\n")),
              ElementsAre(HasSubstr("above 512K")));
  EXPECT_THAT(errorsOf(policyWith("collective = \"allreduce\"\nalgorithm = \"nvls\"\nprotocol = \"simple\"\n"
                                  "chunk_size = \"256K\"\n")),
              ElementsAre(HasSubstr("above 128K")));
}

TEST(ChunkSizeRules, ThePolicysOwnBufferSizesMoveTheCeiling) {
  std::string rule = "collective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"4M\"\n";
  EXPECT_THAT(errorsOf(policyWith(rule)), ElementsAre(HasSubstr("above 2M")));
  EXPECT_THAT(errorsOf(policyWith(rule, "[env]\nNCCL_BUFFSIZE = \"8388608\"\n")), IsEmpty());
}

TEST(ChunkSizeRules, AProtocolTheRuleNeverRunsIsAMistakeInATable) {
  EXPECT_THAT(errorsOf(policyWith("protocol = \"simple\"\nchunk_size = { ll = \"16K\" }\n")),
              ElementsAre(HasSubstr("chunk_size.ll 16K: this rule never has NCCL run LL")));
  EXPECT_THAT(errorsOf(policyWith("protocol = \"simple\"\nchunk_size = { lll = \"16K\" }\n")),
              ElementsAre(HasSubstr("unknown protocol 'lll' in chunk_size")));
}

}  // namespace
}  // namespace nccl_roce::policy
