// NCCL runs tuner init on several threads at once (group init, non-blocking communicators) and MoE serving
// creates hundreds of communicators per process; finalize can run on NCCL's async threads while other
// communicators are busy. Everything here runs concurrently from the first call on, so that the policy is
// loaded, compiled and shared under contention (run under -DNCCL_ROCE_SANITIZE=thread to check for races).
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "plugin/process_context.h"
#include "plugin/tuner_plugin.h"
#include "tests/support/nccl_cost_table.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

constexpr int kThreads = 32;
constexpr int kCommsPerThread = 8;
constexpr int kCallsPerComm = 64;

using Table = testing::NcclCostTable;

// A fresh process context: the first of these inits is the one that loads the policy.
const char* kPolicy =
    "[policy]\nname = \"concurrent\"\n"
    "[[rule]]\nname = \"small\"\ncollective = \"allreduce\"\nsize = \"..64K\"\nnodes = \"2..\"\nprotocol = \"ll\"\n"
    "[[rule]]\nname = \"medium\"\ncollective = \"allreduce\"\nsize = \"64K..4M\"\nnodes = \"2..\"\n"
    "algorithm = \"tree\"\nprotocol = \"ll128\"\nchannels = 8\n";

TEST(TunerConcurrency, HundredsOfCommunicatorsInitCallAndFinalizeAtOnce) {
  testing::TempDir dir;
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", dir.writeFile("concurrent.toml", kPolicy)},
                                                        {"NCCL_ROCE_STATS", dir.join("stats")}});
  ProcessContext process(env);
  testing::clearCapturedNcclLog();
  std::atomic<int> wrongDecisions{0};
  std::atomic<int> failedCalls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kCommsPerThread; ++k) {
        uint64_t commId = 0x1000u + static_cast<uint64_t>(t * kCommsPerThread + k);
        size_t nNodes = 1 + static_cast<size_t>(k % 3);  // three communicator shapes, shared lookups
        void* ctx = nullptr;
        if (tunerInit(process, &ctx, commId, nNodes * 8, nNodes, testing::captureNcclLog) != ncclSuccess) {
          ++failedCalls;
        }
        for (int call = 0; call < kCallsPerComm; ++call) {
          Table table;
          int nChannels = 0;
          size_t bytes = size_t{1} << (call % 24);
          if (tunerGetCollInfo(ctx, ncclFuncAllReduce, bytes, 1, table.ptr(), 7, 3, 0, &nChannels) != ncclSuccess) {
            ++failedCalls;
          }
          // What a plain reading of the policy says for this call.
          bool multiNode = nNodes > 1;
          bool small = multiNode && bytes < (64u << 10);
          bool medium = multiNode && bytes >= (64u << 10) && bytes < (4u << 20);
          bool right = small    ? table.cells[1][0] == 0.0f && nChannels == 0  // Ring is the cheapest with LL
                       : medium ? table.cells[0][1] == 0.0f && nChannels == 8
                                : table.cells[1][0] == 18.0f && nChannels == 0;
          if (!right) ++wrongDecisions;
        }
        if (tunerFinalize(ctx) != ncclSuccess) ++failedCalls;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failedCalls.load(), 0);
  EXPECT_EQ(wrongDecisions.load(), 0);

  constexpr size_t kComms = kThreads * kCommsPerThread;
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_INFO, "uses policy 'concurrent'"), kComms);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_WARN, ""), 0u);

  // Every finalized communicator is in the statistics files (the process's file and the part files that the
  // oldest final entries moved to), each exactly once, none torn.
  std::string path = TelemetryFiles::pathFor(dir.join("stats"), ::getpid());
  std::vector<std::string> files{path};
  for (uint32_t part = 1; ::access(TelemetryFiles::partPathFor(path, part).c_str(), F_OK) == 0; ++part) {
    files.push_back(TelemetryFiles::partPathFor(path, part));
  }
  EXPECT_GE(files.size(), 2u) << "256 final entries are more than a file keeps in memory";
  std::set<std::string> ids;
  uint64_t calls = 0;
  size_t entries = 0;
  for (const std::string& file : files) {
    std::ifstream in(file);
    ASSERT_TRUE(in.good()) << file;
    std::stringstream text;
    text << in.rdbuf();
    auto doc = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(doc.is_discarded()) << file;
    for (const auto& comm : doc["communicators"]) {
      ids.insert(comm["comm_id"].get<std::string>());
      calls += comm["calls"].get<uint64_t>();
      ++entries;
    }
  }
  EXPECT_EQ(entries, kComms);
  EXPECT_EQ(ids.size(), kComms);
  EXPECT_EQ(calls, kComms * kCallsPerComm);
}

}  // namespace
}  // namespace nccl_roce::plugin
