// `nccl-roce policy verify`: did NCCL run what the policy decides? For every TUNING line of NCCL's log (the
// algorithm, protocol and channels NCCL ran one collective with), the decision the tuner makes for that call with
// this policy, on that communicator's node and rank counts and with what NCCL's printed table offers, by the same
// decide() the plugin runs; then per collective and size: the rule, what it forces, what NCCL ran, and whether
// they agree. Where NCCL 2.31.2 logged its tuner calls (inspect/nccl_info_log.h, NcclTunerCall: every rank's,
// with pipeOps and regBuff), those are checked instead of the TUNING lines.
//
// A cell (communicator shape, collective, size) is:
// - match: every call ran what the rule forces (channels: at most the rule's count; NCCL spreads a small message
//   over fewer channels than it may use, src/enqueue.cc scheduleCollTasksToPlan);
// - mismatch: some call ran something else, with the likely cause (the tuner was not loaded, the process ran
//   another policy, ...);
// - nccl: no rule fires (or the rule keeps NCCL's choice): NCCL's own, nothing to check;
// - unavailable: a rule fires but NCCL's table offers none of its preferences: NCCL's own, as the tuner leaves it;
// - unchecked: what the rule decides cannot be known from the log (a switchback experiment's turn, a rule that
//   selects on pipe_ops or reg_buff, a line no communicator of its process can be told for).
// Chunk sizes are not in NCCL's TUNING lines: a rule's chunk size is shown, never checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inspect/nccl_info_log.h"
#include "policy/policy_loader.h"
#include "telemetry/chunk_size.h"

namespace nccl_roce::inspect {

enum class VerifyStatus { kMatch, kMismatch, kNccl, kUnavailable, kUnchecked };
const char* verifyStatusName(VerifyStatus status);  // "match", "mismatch", "nccl", "unavailable", "unchecked"

// One configuration NCCL ran for a cell, and how often.
struct RanConfig {
  int algorithm = -1, protocol = -1, channels = 0;
  uint64_t calls = 0;
  std::string example;  // "file:line" of its first TUNING line
  bool operator<(const RanConfig& o) const;
};

struct VerifiedCell {
  std::string policy;  // the policy (or experiment arm's policy) deciding for this cell's communicators
  int nRanks = 0, nNodes = 0;
  int collective = -1;
  uint64_t bytes = 0;  // as the tuner is asked (AllGather and ReduceScatter: over all ranks)
  // The rule that fires: its index in the policy (-1: none), its name and line.
  int rule = -1;
  std::string ruleName;
  int ruleLine = 0;
  // What it forces: the choice decide() made (-1: a part it leaves to NCCL), channels (0: NCCL's), chunk size.
  int algorithm = -1, protocol = -1, channels = 0;
  std::string forced;  // in words: "Tree/Simple on at most 1 channel", "LL on the algorithm NCCL finds cheapest"
  telemetry::ChunkSize chunk;
  std::vector<RanConfig> ran;
  VerifyStatus status = VerifyStatus::kNccl;
  std::string why;  // for everything but match and nccl
};

// One process of the logs: rank 0 of its communicators prints their TUNING lines.
struct VerifiedProcess {
  std::string file, host;
  int64_t pid = 0;
  std::string ncclVersion, tunerPlugin;
  std::vector<std::string> policies;  // what our tuner's line says each communicator ran: "name (digest)"
  uint64_t tuningLines = 0;
  uint64_t tunerCalls = 0;  // NCCL 2.31.2's logged tuner calls: checked instead of the TUNING lines where present
};

struct VerifyReport {
  std::string policyName, policySource, policyDigest;
  std::vector<VerifiedProcess> processes;
  std::vector<VerifiedCell> cells;    // by policy, shape, collective, size
  std::vector<std::string> problems;  // what makes the logs no proof: no TUNING line, no tuner, another policy
  uint64_t calls = 0;                 // TUNING lines read
  uint64_t tunerCalls = 0;            // tuner calls read (NCCL 2.31.2's Input and Best tuning lines)

  int count(VerifyStatus status) const;
  // No problem and no mismatch.
  bool ok() const { return problems.empty() && count(VerifyStatus::kMismatch) == 0; }
};

// The policy `active` against every process of `logs`.
VerifyReport verifyPolicy(const policy::ActivePolicy& active, const std::vector<NcclInfoLog>& logs);

// For people: the policy, the processes, one line per cell, the problems, and a summary line.
std::string verifyReportText(const VerifyReport& report);

}  // namespace nccl_roce::inspect
