// NCCL's INFO log read the way `policy verify` and `sweep compare` read it: the real log of rank 0 of an NCCL
// 2.28.9 run on an H200 (tests/data/gpu-runs/h200-nccl-2.28.9), rank 1's, and the line forms other builds and
// launchers print.
#include "inspect/nccl_info_log.h"

#include <gtest/gtest.h>

#include "common/file.h"
#include "tests/support/run_command.h"

namespace nccl_roce::inspect {
namespace {

using nccl_roce::testing::sourcePath;

constexpr int kBroadcast = 0, kAllGather = 2, kAllReduce = 4;
constexpr int kTree = 0, kRing = 1, kCollNetDirect = 2, kNvls = 4, kPat = 6;
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;

std::string realLog(const std::string& name) {
  StatusOr<std::string> text =
      readFileBounded(sourcePath("tests/data/gpu-runs/h200-nccl-2.28.9/sweep/" + name), size_t{1} << 24);
  EXPECT_TRUE(text.isOk()) << text.status().toString();
  return text.isOk() ? *text : "";
}

TEST(NcclInfoLog, RankZeroOfARealRunGivesItsCommunicatorTableTunerAndEveryTuningLine) {
  NcclInfoLog log = parseNcclInfoLog(realLog("policy-inference/rep-1.log"), "rep-1.log");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.malformedTuningLines, 0);
  const NcclProcessLog& p = log.processes[0];
  EXPECT_EQ(p.host, "vm");
  EXPECT_EQ(p.pid, 620);
  EXPECT_EQ(p.ncclVersion, "2.28.9");
  EXPECT_EQ(p.tunerPlugin, "nccl-roce");
  EXPECT_EQ(p.envPlugin, "nccl-roce");
  EXPECT_EQ(p.netPlugin, "nccl-roce");
  EXPECT_EQ(p.profilerPlugin, "nccl-roce");

  ASSERT_EQ(p.communicators.size(), 1u);
  const NcclCommunicatorLine& comm = p.communicators[0];
  EXPECT_EQ(comm.comm, 0x558df9d6dd40u);
  EXPECT_EQ(comm.rank, 0);
  EXPECT_EQ(comm.nRanks, 2);
  EXPECT_EQ(comm.nNodes, 2);
  ASSERT_TRUE(comm.availability.has_value());
  const NcclAvailability& table = *comm.availability;
  EXPECT_EQ(table.numAlgorithms, 7);  // Tree .. PAT
  // "AllReduce |  16.8/ 0.2 |  31.0/ 0.0 |  36.4/ 0.9 |  16.6/ 0.6 |  31.0/ 0.0 |  36.4/ 1.2 | ..." on two nodes
  // over sockets: LL and Simple on Tree and Ring, no LL128 (bandwidth 0), no CollNet, NVLS or PAT.
  EXPECT_TRUE(table.offers(kAllReduce, kTree, kLL));
  EXPECT_FALSE(table.offers(kAllReduce, kTree, kLL128));
  EXPECT_TRUE(table.offers(kAllReduce, kRing, kSimple));
  EXPECT_FALSE(table.offers(kAllReduce, kRing, kLL128));
  EXPECT_FALSE(table.offers(kAllReduce, kCollNetDirect, kSimple));
  EXPECT_FALSE(table.offers(kAllReduce, kNvls, kSimple));
  EXPECT_FALSE(table.offers(kAllReduce, kPat, kSimple));
  EXPECT_TRUE(table.offers(kAllGather, kPat, kSimple));  // "17.6/ 1.8" in the last block
  EXPECT_FALSE(table.offers(kBroadcast, kTree, kLL));

  ASSERT_EQ(p.roceTuners.size(), 1u);
  const RoceTunerLine& tuner = p.roceTuners[0];
  EXPECT_EQ(tuner.commId, 0xbe988c5aba93ac6bu);
  EXPECT_EQ(tuner.nRanks, 2);
  EXPECT_EQ(tuner.nNodes, 2);
  EXPECT_EQ(tuner.policy, "inference");
  EXPECT_EQ(tuner.source, "builtin:inference");
  EXPECT_EQ(tuner.digest, "sha256:cf91bc94eb3688f88191fb9dda3d629d83738a26f2e094e4eb073f500fd9e6f4");
  EXPECT_TRUE(tuner.experiment.empty());
  EXPECT_FALSE(tuner.switchback);

  // 1,248 all-reduces (51 per size and one 32-byte exchange per size) and the driver's device-list all-gather.
  ASSERT_EQ(p.tuning.size(), 1249u);
  const NcclTuningLine& gather = p.tuning[0];
  EXPECT_EQ(gather.collective, kAllGather);
  EXPECT_EQ(gather.bytes, 208u);
  EXPECT_EQ(gather.tunerBytes(2), 416u) << "the tuner is asked about an all-gather's bytes over all ranks";
  EXPECT_EQ(gather.algorithm, kRing);
  EXPECT_EQ(gather.protocol, kLL);
  const NcclTuningLine& last = p.tuning.back();
  EXPECT_EQ(last.collective, kAllReduce);
  EXPECT_EQ(last.bytes, 32u);
  const NcclTuningLine& big = p.tuning[p.tuning.size() - 2];
  EXPECT_EQ(big.bytes, 64u << 20);
  EXPECT_EQ(big.tunerBytes(2), 64u << 20);
  EXPECT_EQ(big.protocol, kSimple);
  EXPECT_EQ(big.channelLo, 0);
  EXPECT_EQ(big.channelHi, 1);
  EXPECT_EQ(big.channels(), 2);
  EXPECT_EQ(big.comm, 0u) << "2.28.9 names no communicator on the line";
}

TEST(NcclInfoLog, OtherRanksPrintTheirCommunicatorButNeitherTableNorTuningLines) {
  NcclInfoLog log = parseNcclInfoLog(realLog("default/rep-1.rank1.out"), "rep-1.rank1.out");
  ASSERT_EQ(log.processes.size(), 1u);
  const NcclProcessLog& p = log.processes[0];
  ASSERT_EQ(p.communicators.size(), 1u);
  EXPECT_EQ(p.communicators[0].rank, 1);
  EXPECT_FALSE(p.communicators[0].availability.has_value());
  EXPECT_TRUE(p.tuning.empty());
  ASSERT_EQ(p.roceTuners.size(), 1u);
  EXPECT_EQ(p.roceTuners[0].policy, "nccl");
}

TEST(NcclInfoLog, ProcessesInOneFileAreToldApartByHostAndPid) {
  std::string text =
      "[1,0]<stdout>:node-a:101:101 [0] NCCL INFO comm 0xa rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0\n"
      "[1,2]<stdout>:node-b:101:101 [0] NCCL INFO comm 0xb rank 2 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0\n"
      "[1,0]<stdout>:node-a:101:107 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo TREE proto LL128 "
      "channel{Lo..Hi}={0..3}\n"
      "#  Rank  0 Group  0 Pid    101 on     node-a device  0 [0x19] NVIDIA H100 80GB HBM3\n";
  NcclInfoLog log = parseNcclInfoLog(text, "mpirun.log");
  ASSERT_EQ(log.processes.size(), 2u);
  EXPECT_EQ(log.processes[0].host, "node-a");
  EXPECT_EQ(log.processes[1].host, "node-b");
  ASSERT_EQ(log.processes[0].tuning.size(), 1u);
  EXPECT_EQ(log.processes[0].tuning[0].algorithm, kTree);
  EXPECT_EQ(log.processes[0].tuning[0].protocol, kLL128);
  EXPECT_EQ(log.processes[0].tuning[0].channels(), 4);
  EXPECT_TRUE(log.processes[1].tuning.empty());
}

TEST(NcclInfoLog, TuningLinesOfOtherBuildsNameTheirCommunicator) {
  auto withComm = parseTuningMessage(
      "ReduceScatter: 4194304 Bytes -> Algo NVLS_TREE proto SIMPLE channel{Lo..Hi}={0..15} comm 0x55a7a339db50");
  ASSERT_TRUE(withComm.has_value());
  EXPECT_EQ(withComm->algorithm, 5);
  EXPECT_EQ(withComm->tunerBytes(8), 32u << 20);
  EXPECT_EQ(withComm->comm, 0x55a7a339db50u);
  auto cga = parseTuningMessage("AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0} cgaClusterSize 1");
  ASSERT_TRUE(cga.has_value());
  EXPECT_EQ(cga->comm, 0u);
}

// NCCL 2.31.2's lines, shaped as its format strings print them (src/tuning/tuning.cc and src/enqueue/enqueue.cc at
// 88980683, docs/nccl-versions.md "Log lines"): an ordinary all-reduce's tuning, a symmetric-window one's (its
// query of the symmetric kernels with the ordinary tuning it starts nested inside), each ordinary choice's "Best
// tuning, algorithm" line, and the TUNING line with 2.31's cgaClusterSize.
constexpr const char* kNccl2312Log =
    "h1:100:100 [0] NCCL INFO NCCL version 2.31.2+cuda13.0\n"
    "h1:100:100 [0] NCCL INFO comm 0x5600aa000010 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
    "h1:100:100 [0] NCCL INFO Input: { .comm = 0x5600aa000010, .tuningMask = 0x1fffff, .func = AllReduce, .redOp = 0, "
    ".devRedop = 0, .dataType = 7, .nBytes = 4096, .numPipesOps = 1, .count = 1024, .countMax = 0, .nWorks = 0, "
    ".winRegType = 0, .regBuff = 0 }\n"
    "h1:100:100 [0] NCCL INFO Best tuning { .id = 3, .valid = 1, timeUs = 0.000000,  .algo = RING, .proto = LL, "
    ".symKernelId = Unknown, .ceMethodId = 2, nChannels = 2, maxChannels = 0, nWarps = 16, forced = 0 }\n"
    "h1:100:100 [0] NCCL INFO Best tuning, algorithm, RING, protocol, LL\n"
    "h1:100:100 [0] NCCL INFO Input: { .comm = 0x5600aa000010, .tuningMask = 0x7fe00000, .func = AllReduce, "
    ".redOp = 0, .devRedop = 0, .dataType = 7, .nBytes = 65536, .numPipesOps = 0, .count = 16384, .countMax = 16384, "
    ".nWorks = 1, .winRegType = 0, .regBuff = 1 }\n"
    "h1:100:100 [0] NCCL INFO Input: { .comm = 0x5600aa000010, .tuningMask = 0x1fffff, .func = AllReduce, .redOp = 0, "
    ".devRedop = 0, .dataType = 7, .nBytes = 65536, .numPipesOps = 0, .count = 16384, .countMax = 16384, "
    ".nWorks = 1, .winRegType = 0, .regBuff = 1 }\n"
    "h1:100:100 [0] NCCL INFO Best tuning { .id = 5, .valid = 1, timeUs = 0.000000,  .algo = RING, .proto = SIMPLE, "
    ".symKernelId = Unknown, .ceMethodId = 2, nChannels = 8, maxChannels = 8, nWarps = 16, forced = 0 }\n"
    "h1:100:100 [0] NCCL INFO Best tuning { .id = 5, .valid = 1, timeUs = 0.000000,  .algo = RING, .proto = SIMPLE, "
    ".symKernelId = Unknown, .ceMethodId = 2, nChannels = 8, maxChannels = 8, nWarps = 16, forced = 0 }\n"
    "h1:100:100 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1} cgaClusterSize 1\n";

TEST(NcclInfoLog, Nccl231TuningLinesAreReadAsTheTunerCallsTheyAre) {
  NcclInfoLog log = parseNcclInfoLog(kNccl2312Log, "2.31.2.log");
  EXPECT_EQ(log.malformedTuningLines, 0);
  ASSERT_EQ(log.processes.size(), 1u);
  const NcclProcessLog& p = log.processes[0];
  EXPECT_EQ(p.ncclVersion, "2.31.2");
  EXPECT_EQ(p.bestTuningLines, 1u);
  ASSERT_EQ(p.tuning.size(), 1u) << "the TUNING line with cgaClusterSize";
  EXPECT_EQ(p.tuning[0].channels(), 2);
  ASSERT_EQ(p.tunerCalls.size(), 3u);
  const NcclTunerCall& plain = p.tunerCalls[0];
  EXPECT_EQ(plain.comm, 0x5600aa000010u);
  EXPECT_EQ(plain.tuningMask, 0x1fffffu);
  EXPECT_EQ(plain.collective, kAllReduce);
  EXPECT_EQ(plain.bytes, 4096u);
  EXPECT_EQ(plain.pipeOps, 1);
  EXPECT_EQ(plain.regBuff, 0);
  EXPECT_EQ(plain.algorithm, kRing);
  EXPECT_EQ(plain.protocol, kLL);
  EXPECT_EQ(plain.channels, 2);
  EXPECT_EQ(plain.maxChannels, 0);
  // The symmetric kernels' tuning got the Best tuning line printed last (the nested one closes first).
  EXPECT_EQ(p.tunerCalls[1].tuningMask, 0x7fe00000u);
  EXPECT_EQ(p.tunerCalls[2].pipeOps, 0);
  EXPECT_EQ(p.tunerCalls[2].regBuff, 1);
  EXPECT_EQ(p.tunerCalls[2].protocol, kSimple);
  EXPECT_EQ(p.tunerCalls[2].maxChannels, 8);
  auto symmetric = parseTuningInputMessage(
      "Input: { .comm = (nil), .tuningMask = 0x1, .func = AllGather, .redOp = 0, .devRedop = 0, .dataType = 7, "
      ".nBytes = 8, .numPipesOps = 0, .count = 2, .countMax = 2, .nWorks = 1, .winRegType = 3, .regBuff = 0 }");
  ASSERT_TRUE(symmetric.has_value());
  EXPECT_EQ(symmetric->comm, 0u);
  NcclTunerCall none;
  EXPECT_TRUE(
      parseBestTuningMessage("Best tuning { .id = 60, .valid = 1, timeUs = 3.500000,  .algo = Unknown, "
                             ".proto = Unknown, .symKernelId = AllReduce_AGxLL_R, .ceMethodId = 2, "
                             "nChannels = 4, maxChannels = 0, nWarps = 16, forced = 0 }",
                             &none));
  EXPECT_EQ(none.algorithm, -1) << "a symmetric kernel: no algorithm of the tuner's table";
}

TEST(NcclInfoLog, CutShortOrUnknownTuningLinesAreCountedNotGuessed) {
  std::string text =
      "h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..\n"
      "h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING_X proto LL channel{Lo..Hi}={0..0}\n"
      "h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={1..0}\n"
      "h:1:1 [0] NCCL INFO AllToAll: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
      "h:1:1 [0] NCCL INFO 8 Bytes -> Algo 1 proto 2 time 12.5\n"  // NCCL 2.22: no collective, not ours to read
      "h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo 1 proto 0 time 10.400000\n";  // NCCL 2.23: counted apart
  NcclInfoLog log = parseNcclInfoLog(text, "cut.log");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_TRUE(log.processes[0].tuning.empty());
  EXPECT_EQ(log.malformedTuningLines, 3);
  EXPECT_EQ(log.olderTuningLines, 1);
}

TEST(NcclInfoLog, OurTunerLinesOfAnExperimentAndASwitchbackAndItsWarnings) {
  // As the torch run printed it (tests/data/gpu-runs/h200-nccl-2.28.9/README.md), and a switchback's form
  // (telemetry/tuner_info_line.h; tests/unit/inspect/tuner_line_round_trip_test.cc reads what the tuner logs).
  NcclInfoLog ours = parseNcclInfoLog(
      "vm:620:620 [0] NCCL INFO NCCL-RoCE: tuner: comm 0xb41c63d60da01ce3 (2 ranks, 2 nodes) uses policy 'inference' "
      "(builtin:inference, sha256:cf91bc94eb3688f88191fb9dda3d629d83738a26f2e094e4eb073f500fd9e6f4), experiment "
      "'gpu-proof' (sha256:a21f5a960692cc61ec96a4ebd09672547eb63966c9150dabff05f45ab354a2bf) arm candidate: 1 of 1 "
      "rules apply\n"
      "vm:620:620 [0] NCCL INFO NCCL-RoCE: tuner: comm 0x00000000000000aa (16 ranks, 2 nodes) runs experiment "
      "'decode-ll' (sha256:ab) as a switchback: arms control, candidate in turns of 16 tuner calls, 2 turns a round\n",
      "ours.log");
  ASSERT_EQ(ours.processes.size(), 1u);
  ASSERT_EQ(ours.processes[0].roceTuners.size(), 2u);
  const RoceTunerLine& arm = ours.processes[0].roceTuners[0];
  EXPECT_EQ(arm.line, 1);
  EXPECT_EQ(arm.experiment, "gpu-proof");
  EXPECT_EQ(arm.experimentDigest, "sha256:a21f5a960692cc61ec96a4ebd09672547eb63966c9150dabff05f45ab354a2bf");
  EXPECT_EQ(arm.arm, "candidate");
  EXPECT_EQ(arm.policy, "inference");
  const RoceTunerLine& switchback = ours.processes[0].roceTuners[1];
  EXPECT_EQ(switchback.line, 2);
  EXPECT_TRUE(switchback.switchback);
  EXPECT_EQ(switchback.nRanks, 16);
  EXPECT_EQ(switchback.experiment, "decode-ll");

  std::string text =
      "\n[2026-11-27 17:42:02] h:7:7 [0] plugin/tuner_setup.cc:64 NCCL WARN NCCL-RoCE: tuner: policy 'x.toml' "
      "unusable, NCCL decides instead: x.toml: not found\n";
  NcclInfoLog log = parseNcclInfoLog(text, "warn.log");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].pid, 7);
  ASSERT_EQ(log.processes[0].roceTunerWarnings.size(), 1u);
  EXPECT_EQ(log.processes[0].roceTunerWarnings[0],
            "NCCL-RoCE: tuner: policy 'x.toml' unusable, NCCL decides instead: x.toml: not found");
}

}  // namespace
}  // namespace nccl_roce::inspect
