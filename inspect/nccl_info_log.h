// What NCCL's own INFO log says about the choices it ran, per process: the communicators it built (the
// "comm 0x.. rank R nRanks N nNodes M ..." line of each), the latency/bandwidth table it prints at each init (what it
// offers: an entry of bandwidth 0 is one it never runs), which tuner plugin it loaded, our tuner's "uses policy"
// line, and each collective's TUNING line ("AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}").
// `policy verify` checks the TUNING lines against a policy (inspect/policy_verify.h); `sweep compare` tells an A/A
// from them. NCCL prints the table and the TUNING lines on rank 0 of each communicator only, with
// NCCL_DEBUG=INFO and TUNING among NCCL_DEBUG_SUBSYS; the same line formats from 2.24 to 2.30
// (src/enqueue.cc, src/graph/tuning.cc, src/init.cc), 2.31 adding " cgaClusterSize N" to the TUNING line. NCCL 2.23
// printed "AllReduce: 8 Bytes -> Algo 1 proto 0 time 10.4" (the tuner's bytes, numbers for names, no channels): such
// lines are counted, not read. From 2.31 every rank also prints "Best tuning, algorithm, RING, protocol, LL" after
// each ordinary choice (src/enqueue/enqueue.cc), counted; and 2.31.2 prints, around every tuning it computes,
// "Input: { .comm = 0x.., .tuningMask = 0x.., .func = AllReduce, ... .nBytes = 8, .numPipesOps = 1, ... .regBuff = 0 }"
// and "Best tuning { .id = 4, ... .algo = RING, .proto = LL, ... nChannels = 2, maxChannels = 0, ... }"
// (src/tuning/tuning.cc; TRACE in 2.32), read as the tuner calls they are (docs/nccl-versions.md, "Log lines").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/nccl_names.h"
#include "telemetry/tuner_info_line.h"

namespace nccl_roce::inspect {

// "AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}"; builds that append " comm 0x.." name the
// communicator (NCCL's pointer).
struct NcclTuningLine {
  int line = 0;         // 1-based, in its file
  int collective = -1;  // tuner index (nccl_names.h)
  uint64_t bytes = 0;   // as NCCL prints it: count x type size, one rank's buffer (AllGather: its send buffer)
  int algorithm = -1;
  int protocol = -1;
  int channelLo = 0, channelHi = 0;
  uint64_t comm = 0;  // 0: the line names no communicator

  int channels() const { return channelHi - channelLo + 1; }
  // The size the tuner was asked about: NCCL passes AllGather and ReduceScatter the bytes over all ranks
  // (ncclFuncMaxSendRecvCount in src/include/enqueue.h).
  uint64_t tunerBytes(int nRanks) const {
    return telemetry::sizedOverRanks(collective) && nRanks > 0 ? bytes * static_cast<uint64_t>(nRanks) : bytes;
  }
};

// One tuning NCCL 2.31.2 logged: the call its "Input: {...}" line describes (exactly what the tuner was asked) and
// what its "Best tuning {...}" line says NCCL then chose. A tuning of the symmetric kernels names no algorithm.
struct NcclTunerCall {
  int line = 0;       // the Input line
  uint64_t comm = 0;  // NCCL's pointer, as its "comm 0x.. rank" line prints it
  uint64_t tuningMask = 0;
  int collective = -1;
  uint64_t bytes = 0;  // as the tuner is asked
  int pipeOps = 0;
  int regBuff = 0;
  int algorithm = -1, protocol = -1;  // NCCL's choice; -1: none (a symmetric kernel, or no Best tuning line)
  int channels = 0;                   // the channels NCCL computed for it
  int maxChannels = 0;                // the tuner's nChannels (0: NCCL decides)
};

// What NCCL offers one communicator: [collective][algorithm][protocol] from the table it prints at init
// ("    AllReduce |    16.8/   0.2 |    31.0/   0.0 | ..."). NCCL zeroes the bandwidth of what it will not run
// (NCCL_ALGO, NCCL_PROTO, LL128 off on the path, CollNet without its plugin) and its cost model then marks the
// entry unavailable (ncclTopoGetAlgoTime: bw == 0 gives -1). Printed to 0.1: a bandwidth under 0.05 GB/s reads as
// 0, which no fabric has.
struct NcclAvailability {
  int line = 0;           // the table's first line
  int numAlgorithms = 0;  // algorithms the table listed (7 since 2.23, PAT; 6 before)
  std::array<std::array<std::array<bool, telemetry::kNumProtocols>, telemetry::kMaxAlgorithms>,
             telemetry::kNumCollectives>
      offered{};

  bool offers(int collective, int algorithm, int protocol) const {
    return collective >= 0 && collective < telemetry::kNumCollectives && algorithm >= 0 && algorithm < numAlgorithms &&
           protocol >= 0 && protocol < telemetry::kNumProtocols && offered[collective][algorithm][protocol];
  }
};

// "comm 0x558df9d6dd40 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0", and the table that follows.
struct NcclCommunicatorLine {
  int line = 0;
  uint64_t comm = 0;  // NCCL's pointer, as the TUNING lines of builds that name it print it
  int rank = -1;
  int nRanks = 0;
  int nNodes = 0;
  std::optional<NcclAvailability> availability;  // rank 0 only, and only with TUNING logged
};

// Our tuner's line at a communicator's init (telemetry/tuner_info_line.h), and where it is in its file.
struct RoceTunerLine : telemetry::TunerInfoLine {
  int line = 0;
};

struct NcclProcessLog {
  std::string host;
  int64_t pid = 0;
  std::string ncclVersion;  // "2.28.9" from "NCCL version 2.28.9+cuda13.0"; "" when not printed
  std::string tunerPlugin;  // "nccl-roce" from "TUNER/Plugin: Using nccl-roce (v5)"; "" when NCCL loaded none
  // The other plugins NCCL names as it loads them: "ENV/Plugin: Using nccl-roce (v1)", "NET/Plugin: Loaded net
  // plugin nccl-roce (v11)", "PROFILER/Plugin: Loaded nccl-roce (v5)".
  std::string envPlugin, netPlugin, profilerPlugin;
  std::vector<NcclCommunicatorLine> communicators;
  std::vector<RoceTunerLine> roceTuners;
  std::vector<std::string> roceTunerWarnings;  // our tuner's WARN lines ("policy 'x' unusable, ..."), as printed
  std::vector<NcclTuningLine> tuning;
  std::vector<NcclTunerCall> tunerCalls;  // NCCL 2.31.2's Input/Best tuning pairs, in the order they began
  uint64_t bestTuningLines = 0;           // 2.31+: "Best tuning, algorithm, .., protocol, .." lines
};

struct NcclInfoLog {
  std::string source;                     // the file name, or what the caller named the text
  std::vector<NcclProcessLog> processes;  // in order of first appearance
  int malformedTuningLines = 0;           // lines that began like a TUNING line and did not parse (cut short, garbled)
  int olderTuningLines = 0;               // NCCL 2.23's form ("... Algo 1 proto 0 time 10.4"), counted, not read
};

// Every process whose lines the text holds, however they are interleaved (several ranks writing one file, or
// mpirun's "[1,0]<stdout>:" prefixes); other text (nccl-tests' table, our runner's lines) is skipped.
NcclInfoLog parseNcclInfoLog(std::string_view text, std::string source);

// The parts of one line, exposed for tests and for callers that read lines one by one.
std::optional<NcclTuningLine> parseTuningMessage(std::string_view message);
// "Input: { ... }" into the call's fields (its result unset); "Best tuning { ... }" into a result's fields.
std::optional<NcclTunerCall> parseTuningInputMessage(std::string_view message);
bool parseBestTuningMessage(std::string_view message, NcclTunerCall* call);

}  // namespace nccl_roce::inspect
