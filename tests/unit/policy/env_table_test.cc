// A policy's [env] as lint reads it: names NCCL reads (a misspelling names the closest one) with values NCCL reads
// as written. A wrong name is read by nobody and a wrong value is parsed into something else ("4M" is 4 to NCCL's
// strtoll), so either would silently leave the run unlike what the policy says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/nccl_variables.h"
#include "policy/policy_toml.h"

namespace nccl_roce::policy {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> envErrors(const std::string& env) {
  std::vector<std::string> out;
  for (const auto& e : parsePolicyToml("[policy]\nname = \"x\"\n[env]\n" + env, "e.toml").errors) {
    out.push_back(e.toString());
  }
  return out;
}

TEST(EnvTable, WhatOperatorsSetOnRoceClustersPasses) {
  auto doc = parsePolicyToml(
      "[policy]\nname = \"x\"\n[env]\nNCCL_IB_QPS_PER_CONNECTION = \"2\"\nNCCL_IB_SPLIT_DATA_ON_QPS = \"0\"\n"
      "NCCL_BUFFSIZE = \"0x800000\"\nNCCL_IB_GID_INDEX = \"-1\"\nNCCL_IB_HCA = \"=mlx5_0:1,mlx5_1:1\"\n"
      "NCCL_NET_GDR_LEVEL = \"PHB\"\nNCCL_ALGO = \"allreduce:tree,ring\"\nNCCL_PROTO = \"^LL128\"\n",
      "e.toml");
  EXPECT_THAT(doc.errors, IsEmpty()) << joinErrors(doc.errors);
  EXPECT_EQ(doc.policy->env.size(), 8u);
}

TEST(EnvTable, AMisspelledNameIsAnErrorThatNamesTheClosestVariable) {
  EXPECT_THAT(envErrors("NCCL_IB_QPS_PER_CONECTION = \"2\"\n"),
              ElementsAre("e.toml:4:1: [env] NCCL_IB_QPS_PER_CONECTION is not a variable NCCL reads: did you mean "
                          "NCCL_IB_QPS_PER_CONNECTION?"));
  EXPECT_THAT(envErrors("NCCL_BUFSIZE = \"4194304\"\n"),
              ElementsAre("e.toml:4:1: [env] NCCL_BUFSIZE is not a variable NCCL reads: did you mean NCCL_BUFFSIZE?"));
  EXPECT_THAT(envErrors("NCCL_IB_QSP_PER_CONNECTION = \"2\"\n"),
              ElementsAre("e.toml:4:1: [env] NCCL_IB_QSP_PER_CONNECTION is not a variable NCCL reads: did you mean "
                          "NCCL_IB_QPS_PER_CONNECTION?"))
      << "two neighbouring letters swapped are one slip";
}

TEST(EnvTable, ANameNearNothingSaysWhereAVariableOfANewerNcclGoes) {
  EXPECT_THAT(envErrors("NCCL_FOO = \"1\"\n"),
              ElementsAre(std::string("e.toml:4:1: [env] NCCL_FOO is not a variable NCCL ") + kNcclVariablesReleases +
                          " reads; if a newer NCCL reads it, export it in the container instead"));
}

TEST(EnvTable, AWholeNumberVariableRefusesTextNcclWouldMisread) {
  EXPECT_THAT(envErrors("NCCL_BUFFSIZE = \"banana\"\n"),
              ElementsAre("e.toml:4:17: [env] NCCL_BUFFSIZE = \"banana\": NCCL reads it as a whole number and would "
                          "take \"banana\" as 0: write a whole number (decimal, or hex with 0x)"));
  EXPECT_THAT(envErrors("NCCL_BUFFSIZE = \"4M\"\n"),
              ElementsAre("e.toml:4:17: [env] NCCL_BUFFSIZE = \"4M\": NCCL reads it as a whole number and would take "
                          "\"4M\" as 4: write \"4194304\" for 4M (bytes, no suffix)"));
  EXPECT_THAT(envErrors("NCCL_IB_DISABLE = \"yes\"\n"),
              ElementsAre("e.toml:4:19: [env] NCCL_IB_DISABLE = \"yes\": NCCL reads it as a whole number and would "
                          "take \"yes\" as 0: write \"1\""));
  EXPECT_THAT(envErrors("NCCL_IB_TIMEOUT = \"020\"\n"),
              ElementsAre("e.toml:4:19: [env] NCCL_IB_TIMEOUT = \"020\": NCCL reads a leading 0 as octal and would "
                          "take \"020\" as 16: write \"20\" without the 0 or \"16\""));
  EXPECT_THAT(envErrors("NCCL_IB_TIMEOUT = \"\"\n"),
              ElementsAre("e.toml:4:19: [env] NCCL_IB_TIMEOUT = \"\": an empty value means NCCL's default: remove "
                          "the line"));
  EXPECT_THAT(envErrors("NCCL_IB_TIMEOUT = \"007\"\nNCCL_IB_SL = \"0\"\n"), IsEmpty()) << "octal 007 is still 7";
}

TEST(EnvTable, VariablesNcclReadsBeforeAnyPluginCannotBePolicyDefaults) {
  EXPECT_THAT(envErrors("NCCL_CONF_FILE = \"/etc/nccl.conf\"\n"),
              ElementsAre("e.toml:4:1: [env] NCCL_CONF_FILE is read before NCCL loads any plugin, so no policy can "
                          "set it; export it in the container instead"));
}

TEST(EnvTable, TheTableHoldsNcclsKindsOfValue) {
  ASSERT_NE(findNcclVariable("NCCL_IB_QPS_PER_CONNECTION"), nullptr);
  EXPECT_EQ(findNcclVariable("NCCL_IB_QPS_PER_CONNECTION")->kind, NcclValueKind::kInteger);
  ASSERT_NE(findNcclVariable("NCCL_SOCKET_IFNAME"), nullptr);
  EXPECT_EQ(findNcclVariable("NCCL_SOCKET_IFNAME")->kind, NcclValueKind::kText);
  ASSERT_NE(findNcclVariable("NCCL_PARAM_DUMP_ALL"), nullptr);
  EXPECT_EQ(ncclValueProblem(*findNcclVariable("NCCL_PARAM_DUMP_ALL"), "True"), "");
  EXPECT_EQ(ncclValueProblem(*findNcclVariable("NCCL_PARAM_DUMP_ALL"), "yes"),
            "NCCL reads it as 1, T, TRUE, 0, F or FALSE and would keep its default for \"yes\": write \"1\"");
  EXPECT_EQ(findNcclVariable("NCCL_ROCE_POLICY"), nullptr) << "our own variables are the process's, never NCCL's";
  EXPECT_EQ(closestNcclVariable("NCCL_XYZZY_PLUGH"), "");
}

}  // namespace
}  // namespace nccl_roce::policy
