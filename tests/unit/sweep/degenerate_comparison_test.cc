// `sweep compare`'s notes on comparisons that cannot show a difference: the first GPU run's A/A (the inference
// policy against NCCL's own, the same TUNING lines at every size) on a time-sliced device; the published AWS logs,
// where a tuner plugin chose on one side and nothing is named; and two sides forcing the same configuration.
#include "nccl-tests-integration/sweep/degenerate_comparison.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/file.h"
#include "nccl-tests-integration/sweep/sample_set.h"
#include "tests/support/run_command.h"
#include "tests/unit/sweep/synthetic_sweep.h"

namespace nccl_roce::sweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

struct Side {
  std::vector<PerfLog> tables;
  std::vector<inspect::NcclInfoLog> nccl;
};

Side read(const std::vector<std::string>& files) {
  Side side;
  for (const std::string& f : files) {
    StatusOr<std::string> text = readFileBounded(nccl_roce::testing::sourcePath(f), size_t{1} << 24);
    EXPECT_TRUE(text.isOk()) << f;
    if (!text.isOk()) continue;
    side.tables.push_back(parsePerfLog(*text, f));
    side.nccl.push_back(inspect::parseNcclInfoLog(*text, f));
  }
  return side;
}

std::vector<std::string> notesOf(const Side& a, const Side& b) {
  Comparison c = compareSweeps(collectSamples(a.tables, Placement::kOutOfPlace),
                               collectSamples(b.tables, Placement::kOutOfPlace), CompareOptions{});
  c.labelA = "a";
  c.labelB = "b";
  return degenerateNotes(c, configurationsOf(a.tables, a.nccl), configurationsOf(b.tables, b.nccl));
}

TEST(DegenerateComparison, TheFirstGpuRunWasAnAaOnATimeSlicedDevice) {
  const std::string d = "tests/data/gpu-runs/h200-nccl-2.28.9/sweep/";
  std::vector<std::string> notes = notesOf(read({d + "default/rep-1.log", d + "default/rep-2.log"}),
                                           read({d + "policy-inference/rep-1.log", d + "policy-inference/rep-2.log"}));
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0],
            "A/A at every size (24) of all_reduce float sum, 2 ranks: NCCL's TUNING lines show the same algorithm, "
            "protocol and channels on both sides there (Ring/LL on 1-2 channels, Ring/Simple on 2 channels), so a "
            "difference there is noise, not the configuration");
  EXPECT_THAT(notes[1], StartsWith("flat timings: A (a)'s all_reduce float sum, 2 ranks took about 4.52 ms at every "
                                   "size from 8 to 8M"));
  EXPECT_THAT(notes[2], StartsWith("flat timings: B (b)'s all_reduce float sum, 2 ranks took about 4.52 ms"));
  EXPECT_THAT(notes[2], HasSubstr("time-sliced between processes"));
}

TEST(DegenerateComparison, ATunerTheLogsDoNotNameIsNoAaAndRealTimesAreNotFlat) {
  const std::string d = "tests/data/nccl-tests/aws-p5_2node_h100x16_efa_allreduce_";
  EXPECT_THAT(notesOf(read({d + "default-run-a.txt", d + "default-run-b.txt"}), read({d + "ofi-tuner.txt"})),
              IsEmpty());
}

TEST(DegenerateComparison, SidesForcingTheSameConfigurationAreAnAaEverywhere) {
  auto side = [](double factor, const char* protocol) {
    Side s;
    for (double noise : {0.99, 1.01}) {
      testing::SyntheticRun run;
      run.sizes = testing::powersOfTwo(1024, 64 << 20);
      run.timeUs = [=](uint64_t size) { return (20 + static_cast<double>(size) / 20000) * noise * factor; };
      run.environment = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", protocol}};
      s.tables.push_back(testing::syntheticLog(run));
    }
    return s;
  };
  EXPECT_THAT(notesOf(side(1.0, "LL"), side(1.03, "LL")),
              ElementsAre("A/A: both sides of all_reduce float sum, 16 ranks forced the same configuration (Ring/LL) "
                          "in every run: a difference is noise, not the configuration"));
  EXPECT_THAT(notesOf(side(1.0, "LL"), side(1.0, "Simple")), IsEmpty());
}

}  // namespace
}  // namespace nccl_roce::sweep
