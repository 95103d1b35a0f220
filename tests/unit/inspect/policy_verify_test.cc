// `policy verify`: NCCL's TUNING lines of a real NCCL 2.28.9 run on an H200 (tests/data/gpu-runs/h200-nccl-2.28.9)
// judged against the policy the run used, and the same log edited the ways a run goes wrong: NCCL running something
// else, the tuner not loaded, another policy, more channels than a rule allows, a preference NCCL does not offer.
#include "inspect/policy_verify.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "common/file.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::inspect {
namespace {

using nccl_roce::testing::sourcePath;
using nccl_roce::testing::TempDir;
using ::testing::HasSubstr;

constexpr int kAllGather = 2, kAllReduce = 4;
constexpr int kTree = 0, kRing = 1;
constexpr int kLL = 0, kSimple = 2;

// What the GPU proof ships to make NCCL's choice differ.
const char* kDivergent = "share/nccl-roce/examples/gpu-proof-divergent.toml";

std::string realLog(const std::string& name) {
  StatusOr<std::string> text =
      readFileBounded(sourcePath("tests/data/gpu-runs/h200-nccl-2.28.9/sweep/" + name), size_t{1} << 24);
  EXPECT_TRUE(text.isOk()) << text.status().toString();
  return text.isOk() ? *text : "";
}

std::shared_ptr<const policy::ActivePolicy> load(const std::string& spec) {
  std::vector<policy::PolicyError> errors;
  auto active = policy::loadPolicySpec(spec, &errors);
  EXPECT_TRUE(active->error().empty()) << active->error();
  return active;
}

std::shared_ptr<const policy::ActivePolicy> loadText(const TempDir& dir, const std::string& text) {
  return load(dir.writeFile("policy.toml", text));
}

// The log as if its communicator had run `active`: our tuner's line names that policy and its digest.
std::string asIfRan(std::string log, const policy::ActivePolicy& active) {
  const policy::Policy& p = *active.policy();
  static const std::regex line("uses policy '[^']*' \\([^,]*, sha256:[0-9a-f]*\\)");
  return std::regex_replace(log, line, "uses policy '" + p.name + "' (" + p.source + ", " + active.digest() + ")");
}

// Every TUNING line of `bytes` (an all-reduce) rewritten to "Algo ALGO proto PROTO channel{Lo..Hi}={LO..HI}".
std::string ranInstead(std::string log, uint64_t bytes, const std::string& ran) {
  std::regex line("AllReduce: " + std::to_string(bytes) +
                  " Bytes -> Algo \\w+ proto \\w+ channel\\{Lo\\.\\.Hi\\}=\\{\\d+\\.\\.\\d+\\}");
  return std::regex_replace(log, line, "AllReduce: " + std::to_string(bytes) + " Bytes -> " + ran);
}

VerifyReport verify(const policy::ActivePolicy& active, const std::string& text,
                    const std::string& name = "rep-1.log") {
  return verifyPolicy(active, {parseNcclInfoLog(text, name)});
}

const VerifiedCell* cellAt(const VerifyReport& r, int collective, uint64_t bytes) {
  for (const VerifiedCell& c : r.cells) {
    if (c.collective == collective && c.bytes == bytes) return &c;
  }
  return nullptr;
}

TEST(PolicyVerify, TheRealInferenceRunRanWhatItsPolicyDecides) {
  VerifyReport r = verify(*load("inference"), realLog("policy-inference/rep-1.log"));
  EXPECT_TRUE(r.ok()) << verifyReportText(r);
  EXPECT_TRUE(r.problems.empty());
  EXPECT_EQ(r.calls, 1249u);
  // The rule covers all-reduces up to 16K on 2+ nodes: 8 B .. 16K are 12 sizes; the rest is NCCL's own.
  EXPECT_EQ(r.count(VerifyStatus::kMatch), 12);
  EXPECT_EQ(r.count(VerifyStatus::kNccl), 13);  // 32K .. 64M and the 416-byte all-gather
  const VerifiedCell* small = cellAt(r, kAllReduce, 4096);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->ruleName, "small-multinode-allreduce-ll");
  EXPECT_EQ(small->forced, "LL on NCCL's cheapest algorithm offering it");
  EXPECT_EQ(small->nRanks, 2);
  EXPECT_EQ(small->nNodes, 2);
  ASSERT_EQ(small->ran.size(), 1u);
  EXPECT_EQ(small->ran[0].algorithm, kRing);
  EXPECT_EQ(small->ran[0].protocol, kLL);
  EXPECT_EQ(small->ran[0].calls, 51u);  // 5 + 20 warm-up and timed, twice, and the in-place check
  const VerifiedCell* gather = cellAt(r, kAllGather, 416);
  ASSERT_NE(gather, nullptr) << "the all-gather of 208 bytes a rank is 416 bytes to the tuner";
  EXPECT_EQ(gather->status, VerifyStatus::kNccl);
}

TEST(PolicyVerify, TheDefaultRunProvesNothingAboutTheInferencePolicyThoughNcclChoseTheSame) {
  // NCCL picks LL up to 16K on two nodes by itself: the decisions agree, the run does not prove the policy.
  VerifyReport r = verify(*load("inference"), realLog("default/rep-1.log"));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.count(VerifyStatus::kMismatch), 0);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_THAT(r.problems[0],
              HasSubstr("ran policy 'nccl' (sha256:de3ab4a97d6cfec92b563b2789f183fb92f4df26bc5b087d29118ec63bd15246), "
                        "not 'inference'"));
  VerifyReport own = verify(*load("nccl"), realLog("default/rep-1.log"));
  EXPECT_TRUE(own.ok()) << verifyReportText(own);
  EXPECT_EQ(own.count(VerifyStatus::kMatch), 0);
  EXPECT_THAT(verifyReportText(own), HasSubstr("no rule of the policy fired; nothing was forced"));
}

TEST(PolicyVerify, NcclRunningSomethingElseIsAMismatchAtThatSizeWithTheLineItWasOn) {
  std::string log =
      ranInstead(realLog("policy-inference/rep-1.log"), 4096, "Algo RING proto SIMPLE channel{Lo..Hi}={0..0}");
  VerifyReport r = verify(*load("inference"), log);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.count(VerifyStatus::kMismatch), 1);
  const VerifiedCell* c = cellAt(r, kAllReduce, 4096);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, VerifyStatus::kMismatch);
  EXPECT_EQ(c->why, "nccl-roce's tuner decided with this policy; NCCL ran something else");
  std::string text = verifyReportText(r);
  EXPECT_THAT(text,
              HasSubstr("  4K: rule line 13 'small-multinode-allreduce-ll' forces LL on NCCL's cheapest algorithm "
                        "offering it; NCCL ran Ring/Simple on 1 channel (51 calls): MISMATCH: nccl-roce's tuner "
                        "decided with this policy; NCCL ran something else (first: rep-1.log:"));
  EXPECT_THAT(text, HasSubstr("verdict: 11 sizes match, 1 mismatch, 13 NCCL's own, 0 unavailable, 0 unchecked (1249 "
                              "TUNING lines): NCCL did not run what the policy decides"));
}

TEST(PolicyVerify, NcclObeysADivergentPolicyAtEverySizeItCovers) {
  auto active = load(sourcePath(kDivergent));
  std::string log = asIfRan(realLog("default/rep-1.log"), *active);
  for (uint64_t bytes = 8; bytes <= (64u << 20); bytes *= 2) {
    std::string ran = bytes < (16u << 10)  ? "Algo TREE proto SIMPLE channel{Lo..Hi}={0..0}"
                      : bytes < (1u << 20) ? "Algo TREE proto LL channel{Lo..Hi}={0..1}"
                                           : "Algo TREE proto SIMPLE channel{Lo..Hi}={0..0}";
    log = ranInstead(log, bytes, ran);
  }
  VerifyReport r = verify(*active, log);
  EXPECT_TRUE(r.ok()) << verifyReportText(r);
  EXPECT_EQ(r.count(VerifyStatus::kMatch), 24);
  const VerifiedCell* mid = cellAt(r, kAllReduce, 64 << 10);
  ASSERT_NE(mid, nullptr);
  // Tree/LL128 is NCCL's bandwidth 0 over sockets: the rule's next preference, Tree/LL, is what it forces.
  EXPECT_EQ(mid->forced, "Tree/LL (its first preference, Tree/LL128, is not offered)");
  const VerifiedCell* large = cellAt(r, kAllReduce, 4 << 20);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(large->forced, "Tree/Simple on at most 1 channel");
  EXPECT_EQ(telemetry::describeChunkSize(large->chunk), "NCCL's x0.5");
  EXPECT_THAT(verifyReportText(r),
              HasSubstr("  4M: rule line 29 'large-tree-one-channel' forces Tree/Simple on at most "
                        "1 channel, chunk size NCCL's x0.5 (not in the log); NCCL ran Tree/Simple "
                        "on 1 channel (3 calls): match\n"));
  EXPECT_EQ(large->algorithm, kTree);
  EXPECT_EQ(large->protocol, kSimple);
  EXPECT_EQ(large->channels, 1);

  std::string twoChannels = ranInstead(log, 4 << 20, "Algo TREE proto SIMPLE channel{Lo..Hi}={0..1}");
  VerifyReport wide = verify(*active, twoChannels);
  const VerifiedCell* c = cellAt(wide, kAllReduce, 4 << 20);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, VerifyStatus::kMismatch);
  EXPECT_THAT(c->why, HasSubstr("NCCL ran it on 2 channels, more than the rule's 1"));
}

TEST(PolicyVerify, WithoutTheTunerEveryForcedChoiceNcclDidNotRunSaysSo) {
  auto active = load(sourcePath(kDivergent));
  std::string log = realLog("default/rep-1.log");
  log = std::regex_replace(log, std::regex(".*(TUNER/Plugin|NCCL-RoCE: tuner).*\n"), "");
  VerifyReport r = verify(*active, log);
  EXPECT_FALSE(r.ok());
  ASSERT_FALSE(r.problems.empty());
  EXPECT_THAT(r.problems[0], HasSubstr("NCCL loaded no tuner plugin (no 'TUNER/Plugin: Using' line)"));
  const VerifiedCell* c = cellAt(r, kAllReduce, 8);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, VerifyStatus::kMismatch);
  EXPECT_EQ(c->why, "NCCL loaded no tuner plugin in this process (no 'TUNER/Plugin: Using' line)");
  // The shipped policy differs from what NCCL chose on its own at every size of the real run.
  EXPECT_EQ(r.count(VerifyStatus::kMismatch), 24);
}

TEST(PolicyVerify, ARuleWhosePreferencesNcclDoesNotOfferLeavesNcclsOwn) {
  TempDir dir;
  auto active =
      loadText(dir, "[policy]\nname = \"ll128\"\n[[rule]]\ncollective = \"allreduce\"\nprotocol = \"ll128\"\n");
  VerifyReport r = verify(*active, asIfRan(realLog("policy-inference/rep-1.log"), *active));
  EXPECT_TRUE(r.ok()) << verifyReportText(r);
  EXPECT_EQ(r.count(VerifyStatus::kUnavailable), 24);
  const VerifiedCell* c = cellAt(r, kAllReduce, 1 << 20);
  ASSERT_NE(c, nullptr);
  EXPECT_THAT(c->why, HasSubstr("NCCL's table (line "));
  EXPECT_THAT(c->why, HasSubstr(") offers none of its preferences, so NCCL chose"));
}

TEST(PolicyVerify, WhatTheLogCannotTellIsUncheckedWithTheReason) {
  TempDir dir;
  auto pipeOps = loadText(dir, "[policy]\nname = \"grouped\"\n[[rule]]\npipe_ops = \"2..\"\nprotocol = \"simple\"\n");
  VerifyReport grouped = verify(*pipeOps, asIfRan(realLog("policy-inference/rep-1.log"), *pipeOps));
  const VerifiedCell* c = cellAt(grouped, kAllReduce, 8);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, VerifyStatus::kUnchecked);
  EXPECT_THAT(c->why, HasSubstr("selects on pipe_ops or reg_buff"));
  // A rule before it that matches every call decides alone: that is checked.
  auto first = loadText(dir,
                        "[policy]\nname = \"first\"\n[[rule]]\nsize = \"..=16K\"\nprotocol = \"ll\"\n"
                        "[[rule]]\npipe_ops = \"2..\"\nprotocol = \"simple\"\n");
  VerifyReport ordered = verify(*first, asIfRan(realLog("policy-inference/rep-1.log"), *first));
  EXPECT_EQ(cellAt(ordered, kAllReduce, 8)->status, VerifyStatus::kMatch);
  EXPECT_EQ(cellAt(ordered, kAllReduce, 1 << 20)->status, VerifyStatus::kUnchecked);

  std::string experiment =
      dir.writeFile("switchback.toml",
                    "[experiment]\nname = \"sb\"\ndesign = \"switchback\"\nblock = 16\n"
                    "[[experiment.arm]]\nname = \"control\"\npolicy = \"nccl\"\nweight = 50\n"
                    "[[experiment.arm]]\nname = \"inference\"\npolicy = \"inference\"\nweight = 50\n");
  VerifyReport turns = verify(*load(experiment), realLog("policy-inference/rep-1.log"));
  EXPECT_EQ(turns.count(VerifyStatus::kUnchecked), 25);
  EXPECT_THAT(turns.cells[0].why, HasSubstr("is a switchback: its arm changes every 16 tuner calls"));

  std::string named =
      realLog("policy-inference/rep-1.log") +
      "vm:620:620 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0} comm 0x77\n";
  VerifyReport unknown = verify(*load("inference"), named);
  bool found = false;
  for (const VerifiedCell& cell : unknown.cells) {
    if (cell.nRanks != 0) continue;
    found = true;
    EXPECT_EQ(cell.status, VerifyStatus::kUnchecked);
    EXPECT_THAT(cell.why, HasSubstr("names communicator 0x0000000000000077, whose init line is not in the log"));
  }
  EXPECT_TRUE(found);
}

// NCCL 2.31.2 logs each tuning's inputs and result (docs/nccl-versions.md, "Log lines"): with them a rule that
// selects on pipe_ops is checked, on every rank's log, and the symmetric kernels' tunings are not the tuner's.
TEST(PolicyVerify, Nccl231TunerCallsCheckWhatTuningLinesCannot) {
  TempDir dir;
  auto grouped = loadText(dir,
                          "[policy]\nname = \"grouped\"\n[[rule]]\npipe_ops = \"2..\"\nprotocol = \"simple\"\n"
                          "[[rule]]\nprotocol = \"ll\"\n");
  auto call = [](int line, uint64_t bytes, int pipeOps, const char* algo, const char* proto, const char* mask) {
    return "h1:100:100 [0] NCCL INFO Input: { .comm = 0x5600aa000010, .tuningMask = " + std::string(mask) +
           ", .func = AllReduce, .redOp = 0, .devRedop = 0, .dataType = 7, .nBytes = " + std::to_string(bytes) +
           ", .numPipesOps = " + std::to_string(pipeOps) +
           ", .count = 1, .countMax = 0, .nWorks = 0, .winRegType = 0, .regBuff = 0 }\n"
           "h1:100:100 [0] NCCL INFO Best tuning { .id = " +
           std::to_string(line) + ", .valid = 1, timeUs = 0.000000,  .algo = " + algo + ", .proto = " + proto +
           ", .symKernelId = Unknown, .ceMethodId = 2, nChannels = 2, maxChannels = 0, nWarps = 16, forced = 0 }\n";
  };
  std::string log =
      "h1:100:100 [0] NCCL INFO NCCL version 2.31.2+cuda13.0\n"
      "h1:100:100 [0] NCCL INFO TUNER/Plugin: Using nccl-roce (v6)\n"
      "h1:100:100 [0] NCCL INFO comm 0x5600aa000010 rank 1 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
      "h1:100:100 [0] NCCL INFO NCCL-RoCE: tuner: comm 0x1 (2 ranks, 2 nodes) uses policy 'grouped' (" +
      grouped->policy()->source + ", " + grouped->digest() + "): 2 of 2 rules apply\n" +
      call(1, 4096, 1, "RING", "LL", "0x1fffff") + call(2, 8192, 2, "RING", "SIMPLE", "0x1fffff") +
      call(3, 16384, 2, "TREE", "LL", "0x1fffff") + call(4, 65536, 0, "Unknown", "Unknown", "0x7fe00000");
  VerifyReport r = verify(*grouped, log, "rank1.log");
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(r.processes[0].tunerCalls, 3u) << "the symmetric kernels' tuning is not one";
  EXPECT_EQ(r.tunerCalls, 3u);
  EXPECT_EQ(cellAt(r, kAllReduce, 4096)->status, VerifyStatus::kMatch);
  EXPECT_EQ(cellAt(r, kAllReduce, 8192)->status, VerifyStatus::kMatch) << "pipe_ops 2: the first rule";
  const VerifiedCell* wrong = cellAt(r, kAllReduce, 16384);
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ(wrong->status, VerifyStatus::kMismatch);
  EXPECT_EQ(wrong->ran[0].example, "rank1.log:9");
  EXPECT_EQ(cellAt(r, kAllReduce, 65536), nullptr);
  EXPECT_THAT(verifyReportText(r), HasSubstr("0 TUNING lines, 3 tuner calls (checked instead)"));
  for (const std::string& problem : r.problems) EXPECT_THAT(problem, ::testing::Not(HasSubstr("no NCCL TUNING line")));
}

TEST(PolicyVerify, LogsWithoutTuningLinesProveNothing) {
  VerifyReport r = verify(*load("inference"), realLog("policy-inference/rep-1.rank1.out"), "rep-1.rank1.out");
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_THAT(r.problems[0], HasSubstr("no NCCL TUNING line in the logs"));
  VerifyReport older = verify(
      *load("inference"), "h:1:1 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo 1 proto 0 time 10.400000\n", "2.23.log");
  EXPECT_THAT(older.problems, ::testing::Contains(HasSubstr("1 TUNING line(s) in NCCL 2.23's form")));
}

}  // namespace
}  // namespace nccl_roce::inspect
