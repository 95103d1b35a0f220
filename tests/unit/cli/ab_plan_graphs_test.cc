// `nccl-roce ab plan --graphs` advises only designs that reach a verdict (docs/ab-testing.md, "Planning an
// experiment"): where a size bucket falls short it names how many communicators would reach the asked power, and
// planned with that many the bucket does; it never advises a longer block, and a design that keeps no collective of
// any turn is refused, as policy lint refuses it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "tests/support/run_command.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

struct Row {
  double rounds = 0, power = 0;
  int advised = 0;  // the communicators "to reach it" names; 0 where it names none
};

// The plan's table, by size bucket.
std::map<std::string, Row> plan(const std::string& args) {
  CommandResult r = runCommand(cliPath() + " ab plan --graphs vllm " + args);
  EXPECT_EQ(r.exitCode, 0) << args << ": " << r.err;
  std::map<std::string, Row> rows;
  for (size_t at = r.out.find("\n| "); at != std::string::npos; at = r.out.find("\n| ", at + 1)) {
    char bucket[32];
    Row row;
    if (std::sscanf(r.out.c_str() + at, "\n| %31s | %*d | %lf | %lf |", bucket, &row.rounds, &row.power) != 3) {
      continue;
    }
    const size_t end = r.out.find('\n', at + 1), advice = r.out.find(" communicators (pods", at + 1);
    if (advice < end) row.advised = std::stoi(r.out.substr(r.out.rfind(' ', advice - 1) + 1));
    rows[bucket] = row;
  }
  EXPECT_EQ(rows.size(), 10u) << r.out;
  return rows;
}

// For each design: every bucket under 80% names a number of communicators, and planned with that many it is over.
void expectTheAdviceReachesAVerdict(const std::string& design) {
  int advised = 0;
  for (const auto& [bucket, row] : plan(design)) {
    if (row.power >= 0.8) continue;
    ASSERT_GT(row.advised, 1) << design << ", " << bucket << ": a bucket short of the power names what reaches it";
    ++advised;
    const Row there = plan(design + " --communicators " + std::to_string(row.advised))[bucket];
    EXPECT_GE(there.power, 0.8) << design << ", " << bucket << " with " << row.advised << " communicators";
    EXPECT_GE(there.rounds, 6) << design << ", " << bucket << ": enough rounds for a verdict at 95%";
  }
  EXPECT_GT(advised, 0) << design << ": some bucket falls short, or this checks nothing";
}

TEST(AbPlanGraphs, WhatItAdvisesReachesAVerdict) {
  // The docs' example: the slow first all-reduce kept in one round of batch 1's and 2's graphs (even odds).
  expectTheAdviceReachesAVerdict("--layers 40 --embedding --step-skew 2 --mlp-factor 1.1");
  // A block lint allows but does not advise: buckets of one graph hold 2 rounds, too few for any verdict.
  expectTheAdviceReachesAVerdict("--block 16 --step-skew 2");
}

TEST(AbPlanGraphs, ADesignThatKeepsNoCollectiveIsRefused) {
  CommandResult r = runCommand(cliPath() + " ab plan --graphs vllm --block 4 --washout 4");
  EXPECT_EQ(r.exitCode, 2) << r.out;
  EXPECT_THAT(r.err, HasSubstr("--washout 4"));
  EXPECT_THAT(r.err, HasSubstr("policy lint refuses it"));
  r = runCommand(cliPath() + " ab plan --graphs vllm --block 32");
  EXPECT_EQ(r.exitCode, 2) << r.out;
  EXPECT_THAT(r.err, HasSubstr("policy lint refuses a switchback block past 16"));
}

}  // namespace
}  // namespace nccl_roce::testing
