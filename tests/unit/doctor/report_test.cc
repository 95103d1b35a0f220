// The report automation reads, and the exit status scripts branch on: `nccl-roce doctor --format json` and
// exit status 1 exactly when a check failed.
#include "cli/doctor/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

TEST(DoctorReport, JsonHasEveryCheckWithAStableIdAndASummary) {
  DoctorWorld w;
  w.memlock = 8ull << 20;
  auto results = doctor::runAllChecks(w.inputs());
  auto doc = nlohmann::json::parse(doctor::reportJson(results));
  std::vector<std::string> ids;
  for (const auto& c : doc["checks"]) {
    ids.push_back(c["id"]);
    for (const char* key : {"title", "status", "detail", "remedy"}) EXPECT_TRUE(c.contains(key)) << key;
    EXPECT_EQ(c["remedy"].is_null(), c["status"] == "pass" || c["status"] == "skip") << c.dump();
  }
  EXPECT_THAT(ids,
              ::testing::ElementsAre("port-state", "gid-qualification", "roce-v2", "mtu", "device-access", "memlock",
                                     "peer-memory", "gpu-nic-affinity", "user-settings", "policy-pin", "nccl-library"));
  int total = 0;
  for (const char* s : {"pass", "warn", "fail", "skip"}) total += doc["summary"][s].get<int>();
  EXPECT_EQ(total, 11);
  EXPECT_EQ(doc["summary"]["fail"], 1) << "memlock";
  EXPECT_TRUE(doctor::anyFailed(results));
}

TEST(DoctorReport, TextGivesEachCheckALineAndEachProblemItsRemedy) {
  DoctorWorld w;
  w.memlock = 8ull << 20;
  std::string text = doctor::reportText(doctor::runAllChecks(w.inputs()));
  EXPECT_THAT(text,
              HasSubstr("fail  memlock              8M bytes (RLIMIT_MEMLOCK)\n      -> RDMA memory registration"));
  EXPECT_THAT(text, HasSubstr("pass  port-state           2 of 2 port(s) ACTIVE\n"));
}

// The CLI on the bundled example machine: exit status 0 with warnings only, JSON that parses.
TEST(DoctorCli, ExitsZeroOnTheExampleMachineAndPrintsJson) {
  auto result = runCommand("env -u NCCL_IB_GID_INDEX -u NCCL_IB_HCA " + cliPath() + " doctor --snapshot " +
                           sourcePath("share/nccl-roce/examples/sriov-pod-8rail.json") + " --format json");
  EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
  auto doc = nlohmann::json::parse(result.out);
  EXPECT_EQ(doc["summary"]["fail"], 0);
  EXPECT_EQ(doc["checks"][0]["id"], "port-state");
}

TEST(DoctorCli, ExitsOneWhenACheckFails) {
  DoctorWorld w;  // a tree where the pod's secondary networks carry no address: the GID check fails
  std::string ifaddrs = w.dir.writeFile("ifaddrs", "eth0 10.244.3.17/24\n");
  auto result = runCommand("env -u NCCL_IB_GID_INDEX -u NCCL_IB_HCA " + cliPath() + " doctor --sysfs-root " +
                           w.sys.root() + " --ifaddrs " + ifaddrs);
  EXPECT_EQ(result.exitCode, 1) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("fail  gid-qualification"));
}

}  // namespace
}  // namespace nccl_roce::testing
