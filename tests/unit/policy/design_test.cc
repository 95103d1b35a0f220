// How an experiment file says how its arms get traffic: per communicator (the default) or switchback, with the
// turn's length and the washout, and the errors that say what to write instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "policy/policy_loader.h"
#include "policy/policy_toml.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::policy {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const char* kArms = R"(
[[experiment.arm]]
name = "control"
policy = "nccl"
weight = 50
[[experiment.arm]]
name = "candidate"
policy = "inference"
weight = 50
)";

PolicyDocument experiment(const std::string& header, const std::string& arms = kArms) {
  return parsePolicyToml("[experiment]\nname = \"decode\"\n" + header + arms, "e.toml");
}

std::vector<std::string> errorsOf(const PolicyDocument& doc) {
  std::vector<std::string> out;
  for (const PolicyError& e : doc.errors) out.push_back(e.toString());
  return out;
}

TEST(ExperimentDesign, PerCommunicatorUnlessTheFileSaysSwitchback) {
  PolicyDocument plain = experiment("");
  ASSERT_TRUE(plain.ok()) << joinErrors(plain.errors);
  EXPECT_EQ(plain.experiment->design, ExperimentDesign::kPerCommunicator);
  PolicyDocument named = experiment("design = \"per-communicator\"\n");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named.experiment->design, ExperimentDesign::kPerCommunicator);
  PolicyDocument switchback = experiment("design = \"switchback\"\nblock = 4\n");
  ASSERT_TRUE(switchback.ok()) << joinErrors(switchback.errors);
  EXPECT_EQ(switchback.experiment->design, ExperimentDesign::kSwitchback);
  EXPECT_EQ(switchback.experiment->switchback.block, 4u);
  EXPECT_EQ(switchback.experiment->switchback.washout, kDefaultWashout);
  PolicyDocument washout = experiment("design = \"switchback\"\nblock = 16\nwashout = 0\n");
  ASSERT_TRUE(washout.ok());
  EXPECT_EQ(washout.experiment->switchback.washout, 0u);
  PolicyDocument shortBlock = experiment("design = \"switchback\"\nblock = 2\n");
  ASSERT_TRUE(shortBlock.ok());
  EXPECT_EQ(shortBlock.experiment->switchback.washout, 1u) << "the default, fewer than a block";
}

// Collectives captured into a CUDA graph take their turn's arm for good (docs/ab-testing.md, "Choosing the block"):
// a block past 16 leaves a decode graph too few rounds to judge by, and one of 64 or more puts whole graphs (whole
// batch sizes) on one arm. Both are refused, saying why and what to write.
TEST(ExperimentDesign, ABlockThatTurnsTooSeldomInsideACudaGraphIsRefused) {
  std::vector<std::string> errors = errorsOf(experiment("design = \"switchback\"\nblock = 64\n"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("e.toml:4:9: block = 64 turns too seldom inside a CUDA graph"));
  EXPECT_THAT(errors[0], HasSubstr("one arm, so arm and batch size could not be told apart"));
  EXPECT_THAT(errors[0], HasSubstr("at most 16: write block = 4"));
  errors = errorsOf(experiment("design = \"switchback\"\nblock = 32\n"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("too few rounds of turns to judge by"));
  EXPECT_THAT(errorsOf(experiment("design = \"switchback\"\nblock = 16\n")), IsEmpty());
}

TEST(ExperimentDesign, ABlockThatIsMissingOrNotAPositiveWholeNumberSaysWhatToWrite) {
  EXPECT_THAT(errorsOf(experiment("design = \"switchback\"\n")),
              ElementsAre("e.toml:1:1: design = \"switchback\" needs the turn's length: write block = 4 (tuner calls "
                          "per turn; docs/ab-testing.md, \"Choosing the block\")"));
  for (const char* block : {"0", "-8", "\"64\"", "6.5", "true", "20000000000"}) {
    std::vector<std::string> errors =
        errorsOf(experiment(std::string("design = \"switchback\"\nblock = ") + block + "\n"));
    ASSERT_EQ(errors.size(), 1u) << block;
    EXPECT_THAT(errors[0], HasSubstr("e.toml:4:9: block must be a whole number from 1 to 16: write block = 4"))
        << block;
  }
}

TEST(ExperimentDesign, UnknownDesignsAndSwitchbackKeysWithoutItAreErrors) {
  EXPECT_THAT(errorsOf(experiment("design = \"alternate\"\n")),
              ElementsAre(HasSubstr("e.toml:3:10: design 'alternate' is not one this version knows: write design = "
                                    "\"switchback\"")));
  EXPECT_THAT(
      errorsOf(experiment("block = 64\n")),
      ElementsAre("e.toml:3:9: block applies to design = \"switchback\" only: add that line, or remove this one"));
  EXPECT_THAT(errorsOf(experiment("design = \"switchback\"\nblock = 8\nwashout = 8\n")),
              ElementsAre(HasSubstr("e.toml:5:11: washout must be a whole number from 0 to 7")));
}

TEST(ExperimentDesign, ASwitchbackNeedsTwoArmsToTurnBetween) {
  const char* oneArm = R"(
[[experiment.arm]]
name = "only"
policy = "inference"
weight = 100
)";
  EXPECT_THAT(errorsOf(experiment("design = \"switchback\"\nblock = 16\n", oneArm)),
              ElementsAre(HasSubstr("a switchback experiment turns between arms, and this one has 1: add an "
                                    "[[experiment.arm]], or name the policy itself in NCCL_ROCE_POLICY")));
  EXPECT_THAT(errorsOf(experiment("", oneArm)), IsEmpty()) << "a one-arm per-communicator experiment is a rollout";
}

// A pin names an experiment's digest (docs/rollout.md): ranks whose files differ in design, block or washout
// would turn differently, so each of them changes the digest.
TEST(ExperimentDesign, ThePinnedDigestCoversDesignBlockAndWashout) {
  testing::TempDir dir;
  std::set<std::string> digests;
  for (const char* header : {"", "design = \"switchback\"\nblock = 16\n", "design = \"switchback\"\nblock = 8\n",
                             "design = \"switchback\"\nblock = 16\nwashout = 3\n"}) {
    std::string path = dir.writeFile("e" + std::to_string(digests.size()) + ".toml",
                                     "[experiment]\nname = \"decode\"\n" + std::string(header) + kArms);
    auto active = loadPolicySpec(path, nullptr);
    ASSERT_TRUE(active->error().empty()) << active->error();
    digests.insert(active->digest());
  }
  EXPECT_EQ(digests.size(), 4u);
}

}  // namespace
}  // namespace nccl_roce::policy
