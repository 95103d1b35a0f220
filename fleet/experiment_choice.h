// `--experiment` over a fleet's files: the records of one experiment. A collected directory can hold the files of
// several (last week's beside this week's), and arms of different experiments mean different things, so they are
// never compared together (fleet/fleet.h); this keeps one and says what it left out. An experiment is named by its
// name, or by its `experiment_hash` when one name ran in two versions (an experiment file edited while it ran).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet_records.h"

namespace nccl_roce::fleet {

struct ExperimentRecords {
  std::vector<CommunicatorRecord> statistics;  // the experiment's
  std::vector<CommunicatorRecord> inspector;   // all but those joined to another experiment's communicators
  std::string note;                            // the records left out, counted per experiment; "" when none
};

// The statistics records whose experiment's name or hash is `wanted`, and the Inspector records of every
// communicator no other experiment's statistics name (an Inspector dump names no experiment: its communicators are
// joined to their statistics by id). kNotFound, naming the experiments the inputs hold, when none is `wanted`.
StatusOr<ExperimentRecords> recordsOfExperiment(std::vector<CommunicatorRecord> statistics,
                                                std::vector<CommunicatorRecord> inspector, const std::string& wanted);

// The experiments `records` name, each once: "'decode-ll' (sha256:...), 'prefill-tree' (sha256:...)"; "none" when
// no record names one.
std::string experimentsNamed(const std::vector<CommunicatorRecord>& records);

}  // namespace nccl_roce::fleet
