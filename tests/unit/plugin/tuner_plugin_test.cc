// The tuner plugin as NCCL drives it, through its newest entry points: a broken policy never fails a
// communicator, statistics land in one file per process, nothing is done with null or odd arguments. Each test
// builds its own process context over its own environment, as a fresh process would have.
#include "plugin/tuner_plugin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plugin/process_context.h"
#include "tests/support/nccl_cost_table.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

using Table = testing::NcclCostTable;

// A fresh process: its own environment, its own context.
struct Process {
  Process(std::initializer_list<std::pair<const std::string, std::string>> vars = {}) : env(vars), context(env) {}
  MapEnvironment env;
  ProcessContext context;
};

TEST(TunerPlugin, ABrokenPolicyWarnsOnceAndNeverFailsACommunicator) {
  TempDir dir;
  std::string path = dir.writeFile("broken.toml", "[policy]\nname = 3\n");
  Process process({{"NCCL_ROCE_POLICY", path}});
  testing::clearCapturedNcclLog();
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(tunerInit(process.context, &a, 1, 16, 2, testing::captureNcclLog), ncclSuccess);
  ASSERT_EQ(tunerInit(process.context, &b, 2, 16, 2, testing::captureNcclLog), ncclSuccess);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_WARN, "unusable, NCCL decides instead"), 1u);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_WARN, "broken.toml:2:8: name must be a string"), 1u);
  Table t;
  int nChannels = 0;
  EXPECT_EQ(tunerGetCollInfo(a, ncclFuncAllReduce, 4096, 1, t.ptr(), 7, 3, 0, &nChannels), ncclSuccess);
  EXPECT_EQ(t.cells[1][0], 18) << "passthrough: table untouched";
  EXPECT_EQ(tunerFinalize(a), ncclSuccess);
  EXPECT_EQ(tunerFinalize(b), ncclSuccess);
}

TEST(TunerPlugin, OneInfoLinePerCommunicatorNamesPolicyHashAndArm) {
  Process process({{"NCCL_ROCE_POLICY", "inference"}});
  testing::clearCapturedNcclLog();
  void* c = nullptr;
  tunerInit(process.context, &c, 0xabcdef, 16, 2, testing::captureNcclLog);
  auto log = testing::capturedNcclLog();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].level, NCCL_LOG_INFO);
  EXPECT_THAT(log[0].text, HasSubstr("NCCL-RoCE: tuner: comm 0x0000000000abcdef (16 ranks, 2 nodes) uses policy "
                                     "'inference' (builtin:inference, sha256:"));
  EXPECT_THAT(log[0].text, HasSubstr("1 of 1 rules apply"));
  tunerFinalize(c);
}

// Through the entry point NCCL calls: the process's own context, over the real environment.
TEST(TunerPlugin, TheDefaultPolicyMakesSmallMultiNodeAllReducesUseLL) {
  ::unsetenv("NCCL_ROCE_POLICY");
  void* c = nullptr;
  tunerInit(&c, 7, 16, 2, nullptr, true);
  Table t;
  t.cells[1][0] = 30;  // NCCL's model prefers Ring/Simple here (26) over Ring/LL (30)
  int nChannels = 0;
  tunerGetCollInfo(c, ncclFuncAllReduce, 8192, 1, t.ptr(), 7, 3, 0, &nChannels);
  EXPECT_EQ(t.cells[0][0], 0.0f) << "Tree/LL is the cheapest LL entry (20 < 30)";
  EXPECT_EQ(nChannels, 0);
  Table big;
  tunerGetCollInfo(c, ncclFuncAllReduce, 32768, 1, big.ptr(), 7, 3, 0, &nChannels);
  EXPECT_EQ(big.cells[0][0], 20) << "above 16K NCCL decides";
  tunerFinalize(c);
}

TEST(TunerPlugin, StatisticsAreWrittenAtFinalizeOneFilePerProcess) {
  TempDir dir;
  Process process({{"NCCL_ROCE_STATS", dir.join("stats")}, {"NCCL_ROCE_POLICY", "inference"}});
  void* a = nullptr;
  void* b = nullptr;
  tunerInit(process.context, &a, 0x11, 16, 2, nullptr);
  tunerInit(process.context, &b, 0x22, 8, 1, nullptr);
  int nChannels = 0;
  for (int i = 0; i < 3; ++i) {
    Table t;
    tunerGetCollInfo(a, ncclFuncAllReduce, 4096, 1, t.ptr(), 7, 3, 0, &nChannels);
  }
  Table t;
  tunerGetCollInfo(a, ncclFuncAllGather, 1 << 20, 1, t.ptr(), 7, 3, 0, &nChannels);
  tunerFinalize(a);
  tunerFinalize(b);
  std::ifstream in(dir.join("stats." + std::to_string(::getpid()) + ".json"));
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  auto doc = nlohmann::json::parse(text.str());
  ASSERT_EQ(doc["communicators"].size(), 2u);
  const auto& comm = doc["communicators"][0];
  EXPECT_EQ(comm["comm_id"], "0x0000000000000011");
  EXPECT_EQ(comm["policy"], "inference");
  EXPECT_EQ(comm["calls"], 4);
  EXPECT_EQ(comm["from_rules"], 3);
  ASSERT_EQ(comm["decisions"].size(), 2u);
  const auto& small = comm["decisions"][1];  // sorted by collective: AllGather (2) before AllReduce (4)
  EXPECT_EQ(small["collective"], "AllReduce");
  EXPECT_EQ(small["bucket"], "4K-8K");
  EXPECT_EQ(small["algorithm"], "Ring");
  EXPECT_EQ(small["protocol"], "LL");
  EXPECT_EQ(small["source"], "rule");
  EXPECT_EQ(small["rule"], "small-multinode-allreduce-ll");
  EXPECT_EQ(small["count"], 3);
  const auto& gather = comm["decisions"][0];
  EXPECT_EQ(gather["source"], "nccl");
  EXPECT_EQ(gather["algorithm"], "Ring") << "NCCL's own pick, read from its table";
  EXPECT_EQ(doc["communicators"][1]["calls"], 0);
}

TEST(TunerPlugin, OddArgumentsAreHarmless) {
  Process process;
  EXPECT_EQ(tunerInit(process.context, nullptr, 0, 1, 1, nullptr), ncclSuccess);
  EXPECT_EQ(tunerInit(nullptr, 0, 1, 1, nullptr, true), ncclSuccess);
  Table t;
  int nChannels = 0;
  EXPECT_EQ(tunerGetCollInfo(nullptr, ncclFuncAllReduce, 1, 1, t.ptr(), 7, 3, 0, &nChannels), ncclSuccess);
  void* c = nullptr;
  tunerInit(process.context, &c, 0, 16, 2, nullptr);
  EXPECT_EQ(tunerGetCollInfo(c, ncclFuncAllReduce, 1, 1, nullptr, 7, 3, 0, &nChannels), ncclSuccess);
  EXPECT_EQ(tunerGetCollInfo(c, ncclFuncAllReduce, 1, 1, t.ptr(), -3, 3, 0, &nChannels), ncclSuccess);
  EXPECT_EQ(tunerGetCollInfo(c, static_cast<ncclFunc_t>(99), 1, 1, t.ptr(), 7, 3, 0, &nChannels), ncclSuccess);
  EXPECT_EQ(tunerGetCollInfo(c, ncclFuncAllReduce, 1, 1, t.ptr(), 7, 3, 0, nullptr), ncclSuccess);
  EXPECT_EQ(tunerFinalize(c), ncclSuccess);
  EXPECT_EQ(tunerFinalize(nullptr), ncclSuccess);
}

TEST(TunerPlugin, WithoutACostTableOnlySafeNamedChoicesAreReturned) {
  TempDir dir;
  std::string path = dir.writeFile("v2.toml",
                                   "[policy]\nname = \"v2\"\n"
                                   "[[rule]]\nsize = \"..4K\"\nalgorithm = \"tree\"\nprotocol = \"ll\"\nchannels = 4\n"
                                   "[[rule]]\nsize = \"4K..64K\"\nprotocol = \"ll\"\n"
                                   "[[rule]]\nsize = \"64K..\"\nalgorithm = \"ring\"\nprotocol = \"ll128\"\n");
  Process process({{"NCCL_ROCE_POLICY", path}});
  void* c = nullptr;
  tunerInit(process.context, &c, 0, 16, 2, nullptr);
  int algorithm = -1, protocol = -1, nChannels = 0;
  tunerGetCollInfoWithoutTable(c, ncclFuncAllReduce, 1024, 1, &algorithm, &protocol, &nChannels);
  EXPECT_EQ(algorithm, NCCL_ALGO_TREE);
  EXPECT_EQ(protocol, NCCL_PROTO_LL);
  EXPECT_EQ(nChannels, 4);
  algorithm = protocol = -1;
  tunerGetCollInfoWithoutTable(c, ncclFuncAllGather, 1024, 1, &algorithm, &protocol, &nChannels);
  EXPECT_EQ(algorithm, -1) << "Tree does not exist for all-gather";
  tunerGetCollInfoWithoutTable(c, ncclFuncAllReduce, 8192, 1, &algorithm, &protocol, &nChannels);
  EXPECT_EQ(algorithm, -1) << "'cheapest' cannot be known without NCCL's table";
  tunerGetCollInfoWithoutTable(c, ncclFuncAllReduce, 1 << 20, 1, &algorithm, &protocol, &nChannels);
  EXPECT_EQ(protocol, -1) << "LL128 may not exist on this hardware";
  tunerFinalize(c);
  process.env.set("NCCL_PROTO", "simple");
  tunerInit(process.context, &c, 0, 16, 2, nullptr);
  tunerGetCollInfoWithoutTable(c, ncclFuncAllReduce, 1024, 1, &algorithm, &protocol, &nChannels);
  EXPECT_EQ(algorithm, -1) << "the user restricted NCCL_PROTO: NCCL decides";
  tunerFinalize(c);
}

TEST(TunerPlugin, TheInfoLineNamesTheExperimentArm) {
  TempDir dir;
  std::string path = dir.writeFile("ab.toml",
                                   "[experiment]\nname = \"all-candidate\"\n"
                                   "[[experiment.arm]]\nname = \"control\"\npolicy = \"nccl\"\nweight = 0\n"
                                   "[[experiment.arm]]\nname = \"candidate\"\npolicy = \"inference\"\nweight = 100\n");
  Process process({{"NCCL_ROCE_POLICY", path}});
  testing::clearCapturedNcclLog();
  void* c = nullptr;
  tunerInit(process.context, &c, 0x42, 16, 2, testing::captureNcclLog);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_INFO, "uses policy 'inference' (builtin:inference, sha256:"), 1u);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_INFO, " arm candidate: 1 of 1 rules apply"), 1u);
  tunerFinalize(c);
}

nlohmann::json readStatistics(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

// [experiment.explore]: a communicator in the explore share runs a generated arm, which forces its choice in the
// explored calls (named by its explored rule) and decides as the base arm elsewhere.
TEST(TunerPlugin, AGeneratedArmIsNamedInTheInfoLineAndStatisticsAndForcesItsChoiceOnlyWhereItExplores) {
  TempDir dir;
  std::string path = dir.writeFile("explore.toml",
                                   "[experiment]\nname = \"explore-decode\"\n"
                                   "[[experiment.arm]]\nname = \"control\"\npolicy = \"inference\"\nweight = 95\n"
                                   "[experiment.explore]\nweight = 5\ncollective = \"allreduce\"\nsize = \"64K..\"\n"
                                   "algorithm = \"tree\"\nprotocol = \"simple\"\nchannels = 8\n");
  Process process({{"NCCL_ROCE_STATS", dir.join("explore")}, {"NCCL_ROCE_POLICY", path}});
  testing::clearCapturedNcclLog();
  void* explored = nullptr;
  void* control = nullptr;
  tunerInit(process.context, &explored, 3, 16, 2, testing::captureNcclLog);  // bucket 98: the explore share
  tunerInit(process.context, &control, 0, 16, 2, testing::captureNcclLog);   // bucket 18: control
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_INFO,
                                          "comm 0x0000000000000003 (16 ranks, 2 nodes) uses policy "
                                          "'explore-tree-simple-ch8' (" +
                                              path + " [experiment.explore] over builtin:inference, sha256:"),
            1u);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_INFO, " arm explore-tree-simple-ch8: 2 of 2 rules apply"), 1u);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_INFO, " arm control: 1 of 1 rules apply"), 1u);
  int nChannels = 0;
  Table big;
  tunerGetCollInfo(explored, ncclFuncAllReduce, 1 << 20, 1, big.ptr(), 7, 3, 0, &nChannels);
  EXPECT_EQ(big.cells[0][2], 0.0f) << "Tree/Simple forced (NCCL's pick was Ring/LL at 18)";
  EXPECT_EQ(nChannels, 8);
  nChannels = 0;
  Table small;
  tunerGetCollInfo(explored, ncclFuncAllReduce, 4096, 1, small.ptr(), 7, 3, 0, &nChannels);
  EXPECT_EQ(small.cells[1][0], 0.0f) << "outside the explored sizes: the base's LL rule (Ring/LL, the cheapest LL)";
  EXPECT_EQ(nChannels, 0);
  Table noTree;
  for (float& cell : noTree.cells[0]) cell = -1;  // e.g. NCCL_ALGO=^tree
  tunerGetCollInfo(explored, ncclFuncAllReduce, 1 << 20, 1, noTree.ptr(), 7, 3, 0, &nChannels);
  EXPECT_EQ(noTree.cells[1][0], 18) << "unavailable: NCCL's own choice, table untouched";
  EXPECT_EQ(nChannels, 0) << "and NCCL's own channel count";
  Table controlTable;
  tunerGetCollInfo(control, ncclFuncAllReduce, 1 << 20, 1, controlTable.ptr(), 7, 3, 0, &nChannels);
  EXPECT_EQ(controlTable.cells[0][2], 30) << "the control arm does not explore";
  tunerFinalize(explored);
  tunerFinalize(control);
  auto doc = readStatistics(dir.join("explore." + std::to_string(::getpid()) + ".json"));
  ASSERT_EQ(doc["communicators"].size(), 2u);
  const auto& comm = doc["communicators"][0];
  EXPECT_EQ(comm["arm"], "explore-tree-simple-ch8");
  EXPECT_EQ(comm["policy"], "explore-tree-simple-ch8");
  EXPECT_EQ(comm["experiment"], "explore-decode");
  std::map<std::string, std::string> ruleBySource;  // bucket -> "source rule"
  for (const auto& d : comm["decisions"]) {
    ruleBySource[d["bucket"].get<std::string>()] +=
        d["source"].get<std::string>() + " " + d["rule"].get<std::string>() + ";";
  }
  EXPECT_EQ(ruleBySource["1M-2M"], "rule explore tree/simple ch8;unavailable explore tree/simple ch8;");
  EXPECT_EQ(ruleBySource["4K-8K"], "rule small-multinode-allreduce-ll;");
  EXPECT_EQ(doc["communicators"][1]["arm"], "control");
}

TEST(TunerPlugin, ExploringWhatNcclNeverRunsWarnsOnceWithThePositionAndLeavesNcclsChoice) {
  TempDir dir;
  std::string path = dir.writeFile("explore.toml",
                                   "[experiment]\nname = \"explore-decode\"\n"
                                   "[[experiment.arm]]\nname = \"control\"\npolicy = \"inference\"\nweight = 95\n"
                                   "[experiment.explore]\nweight = 5\ncollective = \"allreduce\"\n"
                                   "algorithm = \"nvls\"\nprotocol = \"ll\"\n");
  Process process({{"NCCL_ROCE_POLICY", path}});
  testing::clearCapturedNcclLog();
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(tunerInit(process.context, &a, 3, 16, 2, testing::captureNcclLog), ncclSuccess);
  ASSERT_EQ(tunerInit(process.context, &b, 0, 16, 2, testing::captureNcclLog), ncclSuccess);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_WARN,
                                          "explore.toml:11:12: NCCL never runs NVLS with LL (it runs NVLS "
                                          "with Simple only)"),
            1u);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_WARN, ""), 1u) << "one WARN per process";
  Table t;
  int nChannels = 0;
  tunerGetCollInfo(a, ncclFuncAllReduce, 4096, 1, t.ptr(), 7, 3, 0, &nChannels);
  EXPECT_EQ(t.cells[1][0], 18) << "NCCL decides: not even the control arm's rule applies";
  tunerFinalize(a);
  tunerFinalize(b);
}

TEST(TunerPlugin, StatisticsTellNcclsChoicesFromUnavailablePreferences) {
  TempDir dir;
  Process process({{"NCCL_ROCE_STATS", dir.join("unavailable")}, {"NCCL_ROCE_POLICY", "inference"}});
  void* c = nullptr;
  tunerInit(process.context, &c, 0x33, 16, 2, nullptr);
  Table t;
  for (auto& row : t.cells) row[0] = -1;  // NCCL_PROTO=^LL: no LL anywhere
  int nChannels = 0;
  tunerGetCollInfo(c, ncclFuncAllReduce, 4096, 1, t.ptr(), 7, 3, 0, &nChannels);
  EXPECT_EQ(t.cells[1][1], 21) << "NCCL's own choice (Ring/LL128, the cheapest left) untouched";
  tunerFinalize(c);
  std::ifstream in(dir.join("unavailable." + std::to_string(::getpid()) + ".json"));
  std::stringstream text;
  text << in.rdbuf();
  auto doc = nlohmann::json::parse(text.str());
  const auto& comm = doc["communicators"][0];
  EXPECT_EQ(comm["unavailable"], 1);
  EXPECT_EQ(comm["from_rules"], 0);
  const auto& d = comm["decisions"][0];
  EXPECT_EQ(d["source"], "unavailable");
  EXPECT_EQ(d["rule"], "small-multinode-allreduce-ll");
  EXPECT_EQ(d["algorithm"], "Ring") << "what NCCL ran instead";
  EXPECT_EQ(d["protocol"], "LL128");
}

TEST(TunerPlugin, WarnsOnceWhenTooManyRulesStackUpOnOneCall) {
  TempDir dir;
  std::string rules;
  for (int i = 0; i < 70; ++i) rules += "allreduce,0,4096,ring,ll,-1,-1,-1\n";  // a 70-deep fallback chain
  Process process({{"NCCL_ROCE_POLICY", dir.writeFile("deep.csv", rules)}});
  testing::clearCapturedNcclLog();
  void* a = nullptr;
  void* b = nullptr;
  tunerInit(process.context, &a, 1, 16, 2, testing::captureNcclLog);
  tunerInit(process.context, &b, 2, 16, 2, testing::captureNcclLog);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_WARN, "more than 64 rules can match one call"), 1u);
  tunerFinalize(a);
  tunerFinalize(b);
}

}  // namespace
}  // namespace nccl_roce::plugin
