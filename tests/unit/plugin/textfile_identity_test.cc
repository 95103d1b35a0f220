// A metrics textfile's name and labels: unique per pod and process although pods share node-exporter's directory
// and their processes share small pids (docs/kubernetes.md, "Metrics").
#include "plugin/textfile_identity.h"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

TEST(TextfileIdentity, TheDownwardApiVariablesNameThePodAndItsNode) {
  MapEnvironment env({{"POD_NAMESPACE", "serving"}, {"POD_NAME", "vllm-0-1"}, {"NODE_NAME", "gpu-node-7"}});
  TextfileIdentity id = textfileIdentity(env, "vllm-0-1", 1, 4242);
  EXPECT_EQ(id.labels.podNamespace, "serving");
  EXPECT_EQ(id.labels.pod, "vllm-0-1");
  EXPECT_EQ(id.labels.node, "gpu-node-7");
  EXPECT_EQ(id.labels.pid, 1);
  EXPECT_EQ(id.fileName, "nccl-roce.serving.vllm-0-1.1.4242.prom");
}

// Without the downward API a pod's host name is still its name: it stands for the pod and the node.
TEST(TextfileIdentity, WithoutTheVariablesTheHostNameStandsForPodAndNode) {
  TextfileIdentity id = textfileIdentity(MapEnvironment(), "vllm-0-1", 1, 4242);
  EXPECT_EQ(id.labels.podNamespace, "");
  EXPECT_EQ(id.labels.pod, "vllm-0-1");
  EXPECT_EQ(id.labels.node, "vllm-0-1");
  EXPECT_EQ(id.fileName, "nccl-roce.vllm-0-1.1.4242.prom");
  EXPECT_EQ(textfileIdentity(MapEnvironment({{"POD_NAME", std::string()}}), "host", 7, 1).labels.pod, "host")
      << "an empty variable is an unset one";
}

// Two pods' pid 1, and one pod's process restarted with the same pid: never the same file.
TEST(TextfileIdentity, NamesDifferByPodAndByStartTime) {
  MapEnvironment a({{"POD_NAME", std::string("vllm-0")}}), b({{"POD_NAME", std::string("vllm-1")}});
  EXPECT_NE(textfileIdentity(a, "h", 1, 100).fileName, textfileIdentity(b, "h", 1, 100).fileName);
  EXPECT_NE(textfileIdentity(a, "h", 1, 100).fileName, textfileIdentity(a, "h", 1, 160).fileName);
}

TEST(TextfileIdentity, OnlyFileSafeCharactersReachTheName) {
  MapEnvironment env({{"POD_NAMESPACE", "a/b"}, {"POD_NAME", "../x y"}});
  TextfileIdentity id = textfileIdentity(env, "h", 3, 9);
  EXPECT_EQ(id.fileName, "nccl-roce.a_b..._x_y.3.9.prom");
  EXPECT_EQ(id.labels.pod, "../x y") << "the label keeps the value: the text format escapes it";
}

// proc(5): the start time is field 22; the command name (field 2) may hold spaces and parentheses.
TEST(TextfileIdentity, TheStartTimeIsField22OfProcStat) {
  testing::TempDir dir;
  std::string stat =
      dir.writeFile("stat",
                    "4242 (python3 (vllm) x) S 1 4242 4242 0 -1 4194560 123456 0 12 0 3405 611 0 0 20 0 57 0 98765432 "
                    "21474836480 1234567 18446744073709551615 1 1 0 0 0 0 16386 16781312 0 0 0 17 3 0 0 0 0 0\n");
  EXPECT_EQ(processStartTicks(stat), 98765432u);
  EXPECT_EQ(processStartTicks(dir.writeFile("short", "4242 (x) S 1 2 3\n")), 0u);
  EXPECT_EQ(processStartTicks(dir.join("missing")), 0u);
  EXPECT_GT(processStartTicks(), 0u) << "this process's own";
}

TEST(TextfileIdentity, OurNamesAreTheTextfilesAndTheirTemporaryFiles) {
  EXPECT_TRUE(isOurTextfile("nccl-roce.serving.vllm-0.1.98765.prom"));
  EXPECT_TRUE(isOurTextfile(".nccl-roce.serving.vllm-0.1.98765.prom.tmp-0123456789abcdef"));
  EXPECT_TRUE(isOurTextfile("nccl-roce.serving.vllm-0.1.98765.prom.tmp.1"));
  EXPECT_FALSE(isOurTextfile("gpu.prom"));
  EXPECT_FALSE(isOurTextfile("nccl-roce.serving.vllm-0.1.98765.prom.bak"));
  EXPECT_FALSE(isOurTextfile(".nccl-roce.x.prom.tmp-123"));
}

}  // namespace
}  // namespace nccl_roce::plugin
