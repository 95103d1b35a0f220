// `nccl-roce proof OUT`: the GPU proof's verdicts, from what gpu-proof.sh left in OUT (docs/gpu-proof.md, "What
// it leaves"): each check passes, fails, or refuses (a performance verdict on a time-sliced device),
// and says why. Everything is read from files, so a proof run on a GPU machine is checked again anywhere.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "common/directory_walk.h"
#include "inspect/nccl_info_log.h"
#include "nccl-tests-integration/driver/issued_counts.h"
#include "nccl-tests-integration/sweep/perf_log.h"
#include "telemetry/stats_file.h"

namespace nccl_roce::cli::proof {

enum class CheckStatus { kPass, kFail, kRefused };
const char* statusName(CheckStatus status);  // "pass", "fail", "refused"

struct Check {
  std::string name;
  CheckStatus status = CheckStatus::kFail;
  std::string summary;               // one sentence
  std::vector<std::string> details;  // one line each
};

// One configuration's runs: OUT/<group>/<label>/rep-N.log (rank 0: table and NCCL's TUNING lines) and
// rep-N.rank<R>.out (the other ranks).
struct Configuration {
  std::string label, dir;
  std::vector<sweep::PerfLog> tables;      // rank 0's logs
  std::vector<inspect::NcclInfoLog> nccl;  // every rank's
  std::vector<driver::IssuedLine> issued;  // every rank's
  std::string policy;                      // NCCL_ROCE_POLICY of its runs, as the logs say
};

// A group of runs that shares a statistics prefix: OUT/sweep, OUT/graph, OUT/switchback.
struct Group {
  std::string name, dir;
  std::vector<Configuration> configurations;
  std::vector<std::pair<std::string, telemetry::StatsFile>> stats;  // OUT/<group>/stats.<pid>.json
  std::vector<std::string> statsTexts;                              // the same files' text, for the fleet reader
  const Configuration* find(const std::string& label) const;
  const Configuration* policyRun() const;  // the one configuration whose label starts "policy-"
};

struct Inputs {
  std::string dir;
  std::vector<SkippedEntry> skipped;  // entries of OUT not read: links, FIFOs, devices (common/directory_walk.h)
  std::vector<std::pair<std::string, std::string>> setup;  // OUT/setup.txt: "key: value" lines, in order
  Group sweep, graph, switchback;
  std::string setupValue(const std::string& key) const;
};

// Reads OUT, as a directory others may write: regular files only, no link followed below OUT, and each entry
// that is not read named in `skipped`. An unreadable or damaged file is an error (a missing group is not: its check
// says so).
StatusOr<Inputs> readInputs(const std::string& dir);

// The checks, in the order they are reported.
std::vector<Check> runChecks(const Inputs& inputs);

}  // namespace nccl_roce::cli::proof
