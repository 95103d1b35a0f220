// `nccl-roce detect`, `env` and `snapshot` as a user runs them: the JSON contract of docs/contracts.md,
// exit statuses, export lines that survive eval, and snapshots that replay to the same answer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/file.h"
#include "tests/fixtures/fake_sysfs.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

// Two rails of a pod plus a down port, with the pod's addresses in a --ifaddrs file.
struct PodTree {
  PodTree() : sys(dir.path() + "/sys") {
    for (int i = 0; i < 2; ++i) {
      std::string net = "net" + std::to_string(i + 1);
      std::string ip = "10.156." + std::to_string(129 + i) + ".132";
      sys.netdev(net);
      sys.device("mlx5_" + std::to_string(i))
          .port(1)
          .roce(400)
          .tableLength(8)
          .linkLocalGids(net, 4)
          .ipv4Pair(6, ip, net);
      ifaddrs += net + " " + ip + "/16\n";
    }
    sys.device("mlx5_2").port(1).roce(400).state("1: DOWN").physState("3: Disabled");
    dir.writeFile("ifaddrs", ifaddrs);
  }
  std::string detect(const std::string& extra) const {
    return "env -u NCCL_IB_HCA -u NCCL_IB_GID_INDEX " + cliPath() + " detect --sysfs-root " + sys.root() +
           " --ifaddrs " + dir.join("ifaddrs") + " " + extra;
  }
  TempDir dir;
  FakeSysfs sys;
  std::string ifaddrs;
};

void expectDesignContract(const json& doc) {
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc["devices"].is_array());
  ASSERT_TRUE(doc["env"].is_object());
  ASSERT_TRUE(doc["warnings"].is_array());
  for (const auto& d : doc["devices"]) {
    EXPECT_TRUE(d["name"].is_string());
    EXPECT_TRUE(d["port"].is_number_integer() || d["port"].is_null());
    EXPECT_TRUE(d["link_layer"].is_string());
    EXPECT_TRUE(d["state"].is_string() || d["state"].is_null());
    EXPECT_TRUE(d["selected"].is_boolean());
    EXPECT_TRUE(d["gid_index"].is_number_integer() || d["gid_index"].is_null());
    EXPECT_TRUE(d["gid"].is_string() || d["gid"].is_null());
    EXPECT_TRUE(d["netdev"].is_string() || d["netdev"].is_null());
    EXPECT_TRUE(d["reason"].is_string() && !d["reason"].get<std::string>().empty());
    if (d["gid"].is_string()) {
      EXPECT_EQ(d["gid"].get<std::string>().size(), 39u) << "kernel form";
    }
  }
  for (auto it = doc["env"].begin(); it != doc["env"].end(); ++it) EXPECT_TRUE(it.value().is_string());
}

TEST(DetectCli, JsonFollowsTheDesignContract) {
  PodTree tree;
  auto result = runCommand(tree.detect("--format json"));
  ASSERT_EQ(result.exitCode, 0) << result.err;
  json doc = json::parse(result.out);
  expectDesignContract(doc);
  ASSERT_EQ(doc["devices"].size(), 3u);
  EXPECT_EQ(doc["devices"][0]["name"], "mlx5_0");
  EXPECT_EQ(doc["devices"][0]["gid_index"], 7);
  EXPECT_EQ(doc["devices"][0]["gid"], "0000:0000:0000:0000:0000:ffff:0a9c:8184");
  EXPECT_EQ(doc["devices"][0]["netdev"], "net1");
  EXPECT_EQ(doc["devices"][2]["selected"], false);
  EXPECT_TRUE(doc["devices"][2]["gid_index"].is_null());
  EXPECT_EQ(doc["env"]["NCCL_IB_HCA"], "=mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(doc["env"]["NCCL_IB_GID_INDEX"], "7");
}

TEST(DetectCli, NothingUsableExitsNonZeroWithOneLineOnStderrAndStillPrintsJson) {
  TempDir dir;
  FakeSysfs sys(dir.path());
  sys.device("mlx5_0").port(1).roce(100).state("1: DOWN");
  auto result = runCommand(cliPath() + " detect --sysfs-root " + sys.root() + " --format json");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err,
            "nccl-roce: no usable RDMA port: none of 1 device port(s) qualified (see each port's reason)\n");
  json doc = json::parse(result.out);
  expectDesignContract(doc);
  EXPECT_TRUE(doc["env"].empty());
}

TEST(DetectCli, UserSetVariablesAreKeptInEveryFormat) {
  PodTree tree;
  auto result = runCommand("NCCL_IB_GID_INDEX=3 " + cliPath() + " detect --sysfs-root " + tree.sys.root() +
                           " --ifaddrs " + tree.dir.join("ifaddrs") + " --format json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  json doc = json::parse(result.out);
  EXPECT_EQ(doc["env"]["NCCL_IB_GID_INDEX"], "3");
  EXPECT_EQ(doc["kept"], json::array({"NCCL_IB_GID_INDEX"}));
}

TEST(EnvCli, ExportLinesSurviveEvalInAShell) {
  PodTree tree;
  std::string env = "env -u NCCL_IB_HCA -u NCCL_IB_GID_INDEX " + cliPath() + " env --sysfs-root " + tree.sys.root() +
                    " --ifaddrs " + tree.dir.join("ifaddrs");
  auto result = runCommand("eval \"$(" + env + ")\" && echo \"$NCCL_IB_HCA|$NCCL_IB_GID_INDEX|$UCX_NET_DEVICES\"");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.out, "=mlx5_0:1,mlx5_1:1|7|mlx5_0:1,mlx5_1:1\n");
}

TEST(DetectCli, TextFormatGivesEveryPortItsReason) {
  PodTree tree;
  auto result = runCommand(tree.detect(""));
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("[x] mlx5_0:1"));
  EXPECT_THAT(result.out, HasSubstr("[ ] mlx5_2:1"));
  EXPECT_THAT(result.out, HasSubstr("port is DOWN (state 1)"));
}

TEST(SnapshotCli, ReplaysToTheSameResolution) {
  PodTree tree;
  std::string file = tree.dir.join("snap.json");
  auto captured = runCommand("env -u NCCL_IB_HCA -u NCCL_IB_GID_INDEX " + cliPath() + " snapshot --sysfs-root " +
                             tree.sys.root() + " --ifaddrs " + tree.dir.join("ifaddrs") + " -o " + file);
  ASSERT_EQ(captured.exitCode, 0) << captured.err;
  auto live = runCommand(tree.detect("--format json"));
  auto replay = runCommand(cliPath() + " detect --snapshot " + file + " --format json");
  ASSERT_EQ(replay.exitCode, 0) << replay.err;
  json a = json::parse(live.out), b = json::parse(replay.out);
  EXPECT_EQ(a["devices"], b["devices"]);
  EXPECT_EQ(a["env"], b["env"]);
}

// A snapshot holds what was read, failures included, and nothing else: the doctor's MTU reads are in it (the
// command runs the doctor's sysfs checks through the recording file access), a file nobody read is not.
TEST(SnapshotCli, HoldsExactlyWhatTheResolverAndTheDoctorRead) {
  PodTree tree;
  tree.sys.write("class/net/net1/mtu", "9000\n");
  tree.sys.write("class/net/net2/mtu", "1500\n");
  std::string file = tree.dir.join("snap.json");
  auto captured = runCommand("env -u NCCL_IB_HCA -u NCCL_IB_GID_INDEX " + cliPath() + " snapshot --sysfs-root " +
                             tree.sys.root() + " --ifaddrs " + tree.dir.join("ifaddrs") + " -o " + file);
  ASSERT_EQ(captured.exitCode, 0) << captured.err;
  json snapshot = json::parse(readFileBounded(file, 1 << 20).value());
  EXPECT_EQ(snapshot["files"]["class/infiniband/mlx5_0/ports/1/gids/7"], "0000:0000:0000:0000:0000:ffff:0a9c:8184\n");
  EXPECT_EQ(snapshot["files"]["class/net/net1/mtu"], "9000\n");
  EXPECT_FALSE(snapshot["files"].contains("class/net/net1/operstate")) << "never read";
  EXPECT_FALSE(snapshot["files"].contains("class/infiniband/mlx5_2/ports/1/gids/0"))
      << "a down port's table is not read";
  EXPECT_EQ(snapshot["errors"]["class/infiniband/mlx5_0/device"], "not found: No such file or directory");
  auto doctor =
      runCommand("env -u NCCL_IB_HCA -u NCCL_IB_GID_INDEX " + cliPath() + " doctor --format json --snapshot " + file);
  json checks = json::parse(doctor.out)["checks"];
  auto mtu = std::find_if(checks.begin(), checks.end(), [](const json& c) { return c["id"] == "mtu"; });
  ASSERT_NE(mtu, checks.end()) << doctor.out;
  EXPECT_EQ((*mtu)["detail"], "net1 9000, net2 1500 (RoCE path MTU below 4096 on net2)");
}

TEST(SnapshotCli, TheBundledExampleMachineResolves) {
  auto result = runCommand(cliPath() + " detect --format json --snapshot " +
                           sourcePath("share/nccl-roce/examples/sriov-pod-8rail.json"));
  ASSERT_EQ(result.exitCode, 0) << result.err;
  json doc = json::parse(result.out);
  expectDesignContract(doc);
  EXPECT_EQ(doc["env"]["NCCL_IB_HCA"],
            "=mlx5_10:1,mlx5_11:1,mlx5_12:1,mlx5_13:1,mlx5_14:1,mlx5_15:1,mlx5_16:1,mlx5_17:1");
  EXPECT_EQ(doc["env"]["NCCL_IB_GID_INDEX"], "7");
  EXPECT_EQ(doc["devices"][0]["function"], "PF") << "the host's management NIC";
  EXPECT_EQ(doc["devices"][1]["name"], "mlx5_10");
  EXPECT_EQ(doc["devices"][1]["function"], "VF");
  EXPECT_EQ(doc["devices"][1]["pci"], "0000:1a:00.2");
  EXPECT_EQ(doc["devices"][5]["numa_node"], 1);
}

// A laptop or a CI runner has no RDMA devices: detect says so and how to see what it reports on a RoCE pod, with a
// command that works as printed (the README's promise of a bundled example machine).
TEST(DetectCli, WithoutRdmaDevicesItPointsAtTheBundledExampleMachine) {
  TempDir dir;
  auto result = runCommand(cliPath() + " detect --sysfs-root " + dir.path());
  EXPECT_EQ(result.exitCode, 1);
  const std::string hint = "replay the bundled example machine: nccl-roce detect --snapshot ";
  size_t at = result.err.find(hint);
  ASSERT_NE(at, std::string::npos) << result.err;
  std::string path = result.err.substr(at + hint.size());
  path.erase(path.find('\n'));
  char example[PATH_MAX];
  ASSERT_NE(::realpath(sourcePath("share/nccl-roce/examples/sriov-pod-8rail.json").c_str(), example), nullptr);
  EXPECT_EQ(path, example) << "this build tree's (inside the source tree): a package's is PREFIX/share/nccl-roce";
  EXPECT_EQ(runCommand(cliPath() + " detect --snapshot " + path).exitCode, 0);
  auto env = runCommand(cliPath() + " env --sysfs-root " + dir.path());
  EXPECT_THAT(env.err, HasSubstr("replay the bundled example machine: nccl-roce env --snapshot " + path));
  FakeSysfs sys(dir.path() + "/sys");
  sys.device("mlx5_0").port(1).roce(100).state("1: DOWN");
  EXPECT_THAT(runCommand(cliPath() + " detect --sysfs-root " + sys.root()).err, Not(HasSubstr("example")))
      << "a machine with devices is a machine to fix, not to replace by an example";
}

TEST(DetectCli, BadOptionFilesAreReportedNotCrashedOn) {
  TempDir dir;
  dir.writeFile("bad-ifaddrs", "net1 10.0.0.1\n");
  dir.writeFile("bad-snapshot", "{\"nccl_roce_snapshot\": 99}");
  auto ifaddrs = runCommand(cliPath() + " detect --sysfs-root " + dir.path() + " --ifaddrs " + dir.join("bad-ifaddrs"));
  EXPECT_EQ(ifaddrs.exitCode, 2);
  EXPECT_THAT(ifaddrs.err, HasSubstr("line 1: '10.0.0.1' has no /PREFIXLEN"));
  auto snapshot = runCommand(cliPath() + " detect --snapshot " + dir.join("bad-snapshot"));
  EXPECT_EQ(snapshot.exitCode, 2);
  EXPECT_THAT(snapshot.err, HasSubstr("not an nccl-roce snapshot"));
  EXPECT_EQ(runCommand(cliPath() + " detect --format yaml").exitCode, 2) << "a usage error";
}

// The caller's RDMA variables count the same on a live machine and on a replay, as in the plugin: a value the
// caller set is kept and reported, over whatever the snapshot recorded.
TEST(DetectCli, AReplayKeepsTheCallersVariablesAsALiveMachineDoes) {
  std::string example = sourcePath("share/nccl-roce/examples/sriov-pod-8rail.json");
  auto detect =
      runCommand("env -u NCCL_IB_HCA NCCL_IB_GID_INDEX=3 " + cliPath() + " detect --format json --snapshot " + example);
  ASSERT_EQ(detect.exitCode, 0) << detect.err;
  json doc = json::parse(detect.out);
  EXPECT_EQ(doc["env"]["NCCL_IB_GID_INDEX"], "3");
  EXPECT_EQ(doc["kept"], json::array({"NCCL_IB_GID_INDEX"}));
  EXPECT_EQ(doc["sources"]["sysfs_root"], "snapshot " + example) << "not an internal path";
  auto env = runCommand("env -u NCCL_IB_HCA NCCL_IB_GID_INDEX=3 " + cliPath() + " env --snapshot " + example);
  EXPECT_THAT(env.out, Not(HasSubstr("export NCCL_IB_GID_INDEX='7'")));
  EXPECT_THAT(env.out, HasSubstr("NCCL_IB_GID_INDEX"));
  auto doctor =
      runCommand("env -u NCCL_IB_HCA NCCL_IB_GID_INDEX=3 " + cliPath() + " doctor --format json --snapshot " + example);
  json checks = json::parse(doctor.out)["checks"];
  for (const auto& c : checks) {
    if (c["id"] != "user-settings") continue;
    std::string detail = c["detail"];
    EXPECT_THAT(detail, HasSubstr("NCCL_IB_GID_INDEX=3: GID 3 on mlx5_10:1, mlx5_11:1, mlx5_12:1"));
    EXPECT_LT(detail.size(), 250u) << "one sentence for the eight rails, not eight: " << detail;
  }
}

TEST(Cli, EveryCommandHasHelp) {
  for (const char* command : {"detect", "env", "snapshot"}) {
    auto result = runCommand(cliPath() + " " + command + " --help");
    EXPECT_EQ(result.exitCode, 0) << command;
    EXPECT_THAT(result.out, HasSubstr("Usage:")) << command;
  }
}

}  // namespace
}  // namespace nccl_roce::testing
