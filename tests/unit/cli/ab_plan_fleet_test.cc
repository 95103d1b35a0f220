// `nccl-roce ab plan` counts the per-communicator design's unit, the communicator, so an operator gets one answer
// however a LeaderWorkerSet group's pods are counted: TP8 x PP2 on two 8-GPU pods is two tensor-parallel
// communicators per group, whether given as one group of 2 or as two pods of 1 (docs/ab-testing.md, "Planning an
// experiment").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_command.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

// The per-communicator row's "it needs N communicators" (0 when the row says no such thing).
int communicatorsNeeded(const std::string& out) {
  const std::string marker = "it needs ";
  const size_t at = out.find(marker);
  return at == std::string::npos ? 0 : std::stoi(out.substr(at + marker.size()));
}

std::string plan(const std::string& fleet) {
  CommandResult r = runCommand(cliPath() + " ab plan --rate 1400 --design per-communicator " + fleet);
  EXPECT_EQ(r.exitCode, 0) << fleet << ": " << r.err;
  return r.out;
}

TEST(AbPlanFleet, ALeaderWorkerSetGroupCountedAsOnePodOrTwoGetsTheSameAnswer) {
  const std::string asGroups = plan("--pods 3 --communicators-per-pod 2");
  const std::string asPods = plan("--pods 6 --communicators-per-pod 1");
  const std::string asCommunicators = plan("--communicators 6");
  const int needed = communicatorsNeeded(asGroups);
  ASSERT_GT(needed, 6) << asGroups;
  EXPECT_EQ(communicatorsNeeded(asPods), needed) << asPods;
  EXPECT_EQ(communicatorsNeeded(asCommunicators), needed) << asCommunicators;
  EXPECT_THAT(asGroups, HasSubstr("6 communicators (3 pods x 2)"));
  EXPECT_THAT(asPods, HasSubstr("6 communicators (6 pods x 1)"));
  // Each says it in the operator's own count too: groups of 2, or pods of 1.
  EXPECT_THAT(asGroups, HasSubstr("it needs " + std::to_string(needed) + " communicators (" +
                                  std::to_string((needed + 1) / 2) + " pods of 2)"));
  EXPECT_THAT(asPods, HasSubstr("it needs " + std::to_string(needed) + " communicators (" + std::to_string(needed) +
                                " pods of 1)"));
}

TEST(AbPlanFleet, CommunicatorsAndPodsAreOneCountOrTheOther) {
  CommandResult r = runCommand(cliPath() + " ab plan --rate 1400 --communicators 6 --pods 3");
  EXPECT_EQ(r.exitCode, 2) << "a usage error: " << r.err;
  EXPECT_THAT(r.err, HasSubstr("excludes"));
}

}  // namespace
}  // namespace nccl_roce::testing
