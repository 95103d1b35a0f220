// A switchback experiment's turns: rounds that hold every arm as its weight says, in an order that is a pure
// function of the experiment, the communicator and the turn (so every rank agrees), a new turn every `block`
// calls, and calls NCCL cannot be steered in (an all -1 table) that take no turn's place.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tuner/switchback_schedule.h"
#include "tuner/switchback_turns.h"

namespace nccl_roce::tuner {
namespace {

policy::Experiment experimentOf(std::vector<std::pair<std::string, uint32_t>> arms, uint32_t block = 16) {
  policy::Experiment e;
  e.name = "decode";
  e.digest = "sha256:" + std::string(64, 'a');
  e.design = policy::ExperimentDesign::kSwitchback;
  e.switchback.block = block;
  for (auto& [name, weight] : arms) {
    policy::ExperimentArm arm;
    arm.name = name;
    arm.weight = weight;
    e.arms.push_back(arm);
  }
  return e;
}

std::map<std::string, int> armsOfRound(SwitchbackSchedule& s, uint64_t round) {
  std::map<std::string, int> seen;
  for (uint32_t t = 0; t < s.turnsPerRound(); ++t) ++seen[s.arms()[s.armOf(round * s.turnsPerRound() + t)]->name];
  return seen;
}

TEST(SwitchbackSchedule, EveryRoundHoldsEachArmAsItsWeightSays) {
  policy::Experiment even = experimentOf({{"control", 50}, {"candidate", 50}});
  SwitchbackSchedule s(even, 0x5f3c9a0e7d21b4c8ull);
  ASSERT_EQ(s.turnsPerRound(), 2u);
  for (uint64_t round = 0; round < 200; ++round) {
    EXPECT_EQ(armsOfRound(s, round), (std::map<std::string, int>{{"control", 1}, {"candidate", 1}})) << round;
  }
  policy::Experiment canary = experimentOf({{"control", 90}, {"canary", 10}});
  SwitchbackSchedule c(canary, 7);
  ASSERT_EQ(c.turnsPerRound(), 10u);
  for (uint64_t round = 0; round < 50; ++round) {
    EXPECT_EQ(armsOfRound(c, round), (std::map<std::string, int>{{"control", 9}, {"canary", 1}})) << round;
  }
  policy::Experiment three = experimentOf({{"a", 40}, {"b", 40}, {"off", 0}, {"c", 20}});
  SwitchbackSchedule t(three, 7);
  EXPECT_EQ(t.turnsPerRound(), 5u);
  EXPECT_EQ(armsOfRound(t, 3), (std::map<std::string, int>{{"a", 2}, {"b", 2}, {"c", 1}})) << "weight 0: no turn";
}

TEST(SwitchbackSchedule, TheOrderIsAPureFunctionOfExperimentCommunicatorAndTurn) {
  policy::Experiment e = experimentOf({{"control", 25}, {"x", 25}, {"y", 25}, {"z", 25}});
  SwitchbackSchedule rank0(e, 42), rank1(e, 42), other(e, 43);
  std::vector<uint32_t> a, b, c;
  for (uint64_t turn = 0; turn < 4000; ++turn) {
    a.push_back(rank0.armOf(turn));
    b.push_back(rank1.armOf(turn));
    c.push_back(other.armOf(turn));
  }
  EXPECT_EQ(a, b) << "every rank computes the same arm for the same turn";
  EXPECT_NE(a, c) << "another communicator gets another order";
  // Shuffled: each arm opens a round about a quarter of the time.
  std::map<uint32_t, int> first;
  for (size_t round = 0; round < 1000; ++round) ++first[a[round * 4]];
  for (const auto& [arm, n] : first) EXPECT_NEAR(n, 250, 75) << "arm " << arm;
}

TEST(SwitchbackSchedule, TheExploredShareGoesToGeneratedArms) {
  policy::Experiment e = experimentOf({{"control", 50}});
  e.explore.emplace();
  e.explore->weight = 50;
  for (const char* name : {"explore-ring-ll", "explore-tree-ll", "explore-ring-simple"}) {
    policy::ExperimentArm arm;
    arm.name = name;
    e.explore->arms.push_back(arm);
  }
  SwitchbackSchedule s(e, 9);
  ASSERT_EQ(s.arms().size(), 4u);
  EXPECT_EQ(s.arms()[0]->name, "control") << "the written arms first: the reference is arm 0";
  std::map<uint32_t, int> turns;
  for (uint64_t turn = 0; turn < 6000; ++turn) ++turns[s.armOf(turn)];
  EXPECT_EQ(turns[0], 3000);
  for (uint32_t g = 1; g <= 3; ++g) EXPECT_NEAR(turns[g], 1000, 150) << s.arms()[g]->name;
}

TEST(SwitchbackTurns, AnArmHoldsBlockCallsAndUnsteerableCallsTakeNoTurn) {
  policy::Experiment e = experimentOf({{"control", 50}, {"candidate", 50}}, 4);
  SwitchbackTurns turns(e, 11, {nullptr, nullptr});
  SwitchbackSchedule expected(e, 11);
  float offered[7 * 3], none[7 * 3];
  for (float& f : offered) f = 1.0f;
  for (float& f : none) f = -1.0f;
  CostTable table{offered, 7, 3}, nothing{none, 7, 3};
  for (uint64_t call = 0; call < 400; ++call) {
    int arm = turns.take(table);
    EXPECT_EQ(arm, static_cast<int>(expected.armOf(call / 4))) << "call " << call;
    if (call % 7 == 3) {
      EXPECT_EQ(turns.take(nothing), arm) << "an all -1 table keeps the arm";
    }
  }
  EXPECT_EQ(turns.callsCounted(), 400u) << "and is not counted";
}

}  // namespace
}  // namespace nccl_roce::tuner
