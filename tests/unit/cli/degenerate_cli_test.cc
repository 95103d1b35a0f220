// Degenerate comparisons as `sweep compare` and `ab` name them to operators, on the first GPU run's own files
// (tests/data/gpu-runs/h200-nccl-2.28.9): two ranks time-slicing one H200, whose every collective took one quantum.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

const std::string kRun = "tests/data/gpu-runs/h200-nccl-2.28.9";

TEST(DegenerateCli, AbNamesEachArmWhoseTimingsAreFlat) {
  std::string stats =
      sourcePath(kRun + "/torch-graphs/stats.792.json") + " " + sourcePath(kRun + "/torch-graphs/stats.793.json");
  CommandResult r = runCommand(cliPath() + " ab " + stats + " --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("nccl-roce ab: flat timings: AllReduce of arm 'control' (GPU clock) took about 4.42 ms "
                               "at every size from 4K to 8M (4 sizes within 1.8%): the device was time-sliced"));
  nlohmann::json j = nlohmann::json::parse(r.out);
  int flat = 0;
  for (const auto& note : j["notes"]) flat += note.get<std::string>().rfind("flat timings: AllReduce of arm '", 0) == 0;
  EXPECT_EQ(flat, 2) << "the control and the candidate";
}

TEST(DegenerateCli, SweepCompareNamesTheAaAndTheFlatSidesAndWarnsOnStderr) {
  CommandResult r = runCommand(cliPath() + " sweep compare " + sourcePath(kRun + "/sweep/default") + " " +
                               sourcePath(kRun + "/sweep/policy-inference"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("## Notes\n\n- A/A at every size (24) of all_reduce float sum, 2 ranks: NCCL's TUNING "
                               "lines show the same algorithm, protocol and channels on both sides there"));
  EXPECT_THAT(r.err,
              HasSubstr("nccl-roce sweep compare: flat timings: A (default)'s all_reduce float sum, 2 ranks took "
                        "about 4.52 ms at every size from 8 to 8M"));
  EXPECT_THAT(r.err, HasSubstr("nccl-roce sweep compare: flat timings: B (policy-inference)'s"));
}

}  // namespace
}  // namespace nccl_roce::testing
