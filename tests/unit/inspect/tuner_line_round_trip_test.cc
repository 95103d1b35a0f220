// The tuner's INFO line, round trip: what the tuner logs at a communicator's init, printed as NCCL prints it,
// is what `policy verify` and `proof` read back (the writer and the reader share telemetry/tuner_info_line.h).
// Each case runs the plugin's tuner init over a process context of its own and reads the captured log.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "inspect/nccl_info_log.h"
#include "plugin/process_context.h"
#include "plugin/tuner_plugin.h"
#include "policy/policy_loader.h"
#include "telemetry/tuner_info_line.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/temp_dir.h"
#include "tuner/switchback_schedule.h"

namespace nccl_roce::inspect {
namespace {

using testing::TempDir;

struct Process {
  Process(std::initializer_list<std::pair<const std::string, std::string>> vars) : env(vars), context(env) {}
  MapEnvironment env;
  plugin::ProcessContext context;
};

// One communicator's init; the tuner's INFO lines as NCCL_DEBUG=INFO prints them ("host:pid:tid [dev] NCCL INFO
// ..."), read back by the INFO-log reader.
struct ReadBack {
  std::vector<std::string> logged;  // what the tuner handed NCCL's logger, prefix included
  std::vector<RoceTunerLine> read;
};

ReadBack initAndReadBack(Process& process, uint64_t commId, size_t nRanks, size_t nNodes) {
  testing::clearCapturedNcclLog();
  void* context = nullptr;
  EXPECT_EQ(plugin::tunerInit(process.context, &context, commId, nRanks, nNodes, testing::captureNcclLog), ncclSuccess);
  ReadBack out;
  std::string log;
  for (const testing::NcclLogLine& line : testing::capturedNcclLog()) {
    if (line.level != NCCL_LOG_INFO) continue;
    out.logged.push_back(line.text);
    log += "node-a:4242:4250 [0] NCCL INFO " + line.text + "\n";
  }
  plugin::tunerFinalize(context);
  NcclInfoLog parsed = parseNcclInfoLog(log, "captured");
  if (parsed.processes.size() == 1) out.read = parsed.processes[0].roceTuners;
  return out;
}

// The line read back renders to exactly what was logged: nothing of it is lost or misread.
void expectRendersAsLogged(const ReadBack& r) {
  ASSERT_EQ(r.logged.size(), 1u);
  ASSERT_EQ(r.read.size(), 1u) << r.logged[0];
  EXPECT_EQ(r.read[0].line, 1);
  EXPECT_EQ(std::string(kNcclLogPrefix) + ": " + telemetry::renderTunerInfoLine(r.read[0]), r.logged[0]);
}

std::shared_ptr<const policy::ActivePolicy> load(const std::string& spec) {
  std::vector<policy::PolicyError> errors;
  auto active = policy::loadPolicySpec(spec, &errors);
  EXPECT_TRUE(errors.empty());
  return active;
}

TEST(TunerLineRoundTrip, ABuiltinPolicyIsReadBackWithItsIdentityAndTheRulesThatApply) {
  Process process({{"NCCL_ROCE_POLICY", "inference"}});
  auto active = load("inference");
  ReadBack twoNodes = initAndReadBack(process, 0xabcdef, 16, 2);
  expectRendersAsLogged(twoNodes);
  ASSERT_EQ(twoNodes.read.size(), 1u);
  const RoceTunerLine& t = twoNodes.read[0];
  EXPECT_EQ(t.commId, 0xabcdefu);
  EXPECT_EQ(t.nRanks, 16);
  EXPECT_EQ(t.nNodes, 2);
  EXPECT_EQ(t.policy, "inference");
  EXPECT_EQ(t.source, "builtin:inference");
  EXPECT_EQ(t.digest, active->policy()->digest);
  EXPECT_TRUE(t.experiment.empty());
  EXPECT_FALSE(t.switchback);
  EXPECT_EQ(t.rules, active->policy()->rules.size());
  EXPECT_EQ(t.rulesApplying, t.rules) << "its rules are for two nodes and more";

  ReadBack oneNode = initAndReadBack(process, 0x1234, 8, 1);
  expectRendersAsLogged(oneNode);
  ASSERT_EQ(oneNode.read.size(), 1u);
  EXPECT_EQ(oneNode.read[0].nNodes, 1);
  EXPECT_EQ(oneNode.read[0].rulesApplying, 0u) << "none applies inside one node";
}

TEST(TunerLineRoundTrip, NcclsOwnChoicesAreReadBackAsPolicyNccl) {
  Process process({{"NCCL_ROCE_POLICY", "nccl"}});
  ReadBack r = initAndReadBack(process, 7, 2, 2);
  expectRendersAsLogged(r);
  ASSERT_EQ(r.read.size(), 1u);
  EXPECT_EQ(r.read[0].policy, "nccl");
  EXPECT_EQ(r.read[0].source, "builtin:nccl");
  EXPECT_EQ(r.read[0].rules, 0u);
}

TEST(TunerLineRoundTrip, AnExperimentsArmIsReadBackWithTheExperimentsIdentity) {
  TempDir dir;
  std::string path = dir.writeFile("ab.toml",
                                   "[experiment]\nname = \"all-candidate\"\n"
                                   "[[experiment.arm]]\nname = \"control\"\npolicy = \"nccl\"\nweight = 0\n"
                                   "[[experiment.arm]]\nname = \"candidate\"\npolicy = \"inference\"\nweight = 100\n");
  Process process({{"NCCL_ROCE_POLICY", path}});
  ReadBack r = initAndReadBack(process, 0x42, 16, 2);
  expectRendersAsLogged(r);
  ASSERT_EQ(r.read.size(), 1u);
  const RoceTunerLine& t = r.read[0];
  EXPECT_EQ(t.experiment, "all-candidate");
  EXPECT_EQ(t.experimentDigest, load(path)->digest());
  EXPECT_EQ(t.arm, "candidate");
  EXPECT_EQ(t.policy, "inference");
  EXPECT_EQ(t.digest, load("inference")->policy()->digest);
}

TEST(TunerLineRoundTrip, ASwitchbackIsReadBackWithItsArmsInTurns) {
  TempDir dir;
  std::string path = dir.writeFile("switchback.toml",
                                   "[experiment]\nname = \"decode-ll\"\ndesign = \"switchback\"\nblock = 16\n"
                                   "[[experiment.arm]]\nname = \"control\"\npolicy = \"nccl\"\nweight = 50\n"
                                   "[[experiment.arm]]\nname = \"candidate\"\npolicy = \"inference\"\nweight = 50\n");
  Process process({{"NCCL_ROCE_POLICY", path}});
  auto active = load(path);
  ReadBack r = initAndReadBack(process, 0x77, 16, 2);
  expectRendersAsLogged(r);
  ASSERT_EQ(r.read.size(), 1u);
  const RoceTunerLine& t = r.read[0];
  EXPECT_TRUE(t.switchback);
  EXPECT_EQ(t.experiment, "decode-ll");
  EXPECT_EQ(t.experimentDigest, active->digest());
  EXPECT_TRUE(t.policy.empty());
  EXPECT_EQ(t.arms, (std::vector<std::string>{"control", "candidate"}));
  EXPECT_EQ(t.block, 16u);
  EXPECT_EQ(t.turnsPerRound, tuner::SwitchbackSchedule(*active->experiment(), 0x77).turnsPerRound());
}

}  // namespace
}  // namespace nccl_roce::inspect
