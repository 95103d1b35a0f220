// Statistics files and Inspector dumps as the plugin and NVIDIA's Inspector write them, for the fleet tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nccl_roce::fleet::testing {

struct TimedKey {
  std::string collective = "AllReduce";
  uint64_t sizeMin = 65536;  // the bucket's lower bound
  double microseconds = 40;  // every collective of the key takes this long
  uint64_t count = 20;
  std::string timingSource = "kernel_gpu";
};

// One line of the tuner's "decisions", as tuner/decision_counts.cc writes it.
struct DecisionLine {
  std::string collective = "AllReduce";
  uint64_t sizeMin = 65536;
  std::string algorithm = "Tree";  // "": null (unknown)
  std::string protocol = "LL";
  int channels = 0;
  std::string source = "rule";
  std::string rule = "decode-small";  // "": null
  uint64_t count = 100;
};

struct CommEntry {
  std::string commId = "0x1f2e3d4c5b6a7980";
  std::string arm = "control";
  std::string policyHash = "0x1111111111111111";
  std::string experiment = "decode-ll";
  std::string experimentHash = "0x51a7";  // the experiment file's version (its sha256 in the plugin's files)
  int rank = 0;
  int nodes = 2;
  std::vector<TimedKey> keys{TimedKey{}};
  std::vector<DecisionLine> decisions{DecisionLine{}};
  // What schema /3 adds (checkpointFile): the entry's number in its process, its state, its last update.
  int entry = 1;
  std::string state = "final";
  std::string updated = "2026-03-01T12:00:00.000Z";
};

// A statistics file (schema nccl-roce.stats/2) holding `comms`, in the plugin's layout.
std::string statisticsFile(const std::vector<CommEntry>& comms);
// The same in schema nccl-roce.stats/3 (a checkpoint or a part file), written by process `pid` on `host`.
std::string checkpointFile(const std::vector<CommEntry>& comms, const std::string& host = "node-a", int pid = 4242);

// One Inspector v4.0 record (pretty-printed as Inspector's README shows it, or on one line).
std::string inspectorRecord(const std::string& commId, int rank, const std::string& coll, uint64_t bytes,
                            uint64_t execUs, bool oneLine = true, const std::string& version = "v4.0",
                            const std::string& timingSource = "kernel_gpu");

}  // namespace nccl_roce::fleet::testing
