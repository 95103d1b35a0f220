// Flat timings: the real time-sliced run on one H200 (two processes, no MPS: tests/data/gpu-runs/h200-nccl-2.28.9)
// is flat, and no run of any published nccl-tests log (NVLink, InfiniBand, RoCE, EFA, TCPXO; tests/data/nccl-tests)
// is, whatever its latency plateau.
#include "verdicts/flat_timings.h"

#include <glob.h>
#include <gtest/gtest.h>

#include <tuple>

#include "common/file.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"
#include "tests/support/run_command.h"

namespace nccl_roce::verdicts {
namespace {

using nccl_roce::testing::sourcePath;

sweep::PerfLog parseFile(const std::string& path) {
  StatusOr<std::string> text = readFileBounded(path, size_t{1} << 26);
  EXPECT_TRUE(text.isOk()) << text.status().toString();
  return sweep::parsePerfLog(text.isOk() ? *text : "", path);
}

std::map<uint64_t, double> timesOf(const sweep::PerfRun& run, bool inPlace) {
  std::map<uint64_t, double> out;
  for (const sweep::PerfRow& row : run.rows) {
    const auto& half = inPlace ? row.inPlace : row.outOfPlace;
    if (half && half->timeUs) out[row.size] = *half->timeUs;
  }
  return out;
}

TEST(FlatTimings, TheTimeSlicedH200RunTakesOneQuantumFrom8BytesTo4MiB) {
  // 8 MiB took 4.57 ms in the default run and 5.46 ms in the inference run: the bandwidth term shows through the
  // quantum from there (16 MiB took 9 ms in both).
  for (const auto& [config, hi, sizes] :
       {std::tuple<const char*, uint64_t, int>{"default", 8u << 20, 21}, {"policy-inference", 4u << 20, 20}}) {
    sweep::PerfLog log =
        parseFile(sourcePath(std::string("tests/data/gpu-runs/h200-nccl-2.28.9/sweep/") + config + "/rep-1.log"));
    ASSERT_EQ(log.runs.size(), 1u);
    std::optional<FlatSpan> flat = findFlatSpan(timesOf(log.runs[0], false));
    ASSERT_TRUE(flat.has_value()) << config;
    EXPECT_EQ(flat->loBytes, 8u);
    EXPECT_EQ(flat->hiBytes, hi) << config;
    EXPECT_EQ(flat->sizes, sizes) << config;
    EXPECT_NEAR(flat->medianUs, 4520, 10);
    EXPECT_LT(flat->spread, 0.02);
  }
  sweep::PerfLog log = parseFile(sourcePath("tests/data/gpu-runs/h200-nccl-2.28.9/sweep/policy-inference/rep-1.log"));
  std::optional<FlatSpan> flat = findFlatSpan(timesOf(log.runs[0], false));
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(describeFlatSpan(*flat), "about 4.52 ms at every size from 8 to 4M (20 sizes within 0.6%)");
}

TEST(FlatTimings, NoPublishedRunIsFlatThoughSmallMessagesShareALatency) {
  glob_t found{};
  ASSERT_EQ(glob(sourcePath("tests/data/nccl-tests/*.txt").c_str(), 0, nullptr, &found), 0);
  int runs = 0;
  for (size_t i = 0; i < found.gl_pathc; ++i) {
    sweep::PerfLog log = parseFile(found.gl_pathv[i]);
    for (const sweep::PerfRun& run : log.runs) {
      for (bool inPlace : {false, true}) {
        std::map<uint64_t, double> times = timesOf(run, inPlace);
        if (times.empty()) continue;
        ++runs;
        std::optional<FlatSpan> flat = findFlatSpan(times);
        EXPECT_FALSE(flat.has_value()) << found.gl_pathv[i] << " line " << run.firstLine << ": "
                                       << (flat ? describeFlatSpan(*flat) : "");
      }
    }
  }
  globfree(&found);
  EXPECT_GE(runs, 10);
}

TEST(FlatTimings, ALatencyPlateauIsNotFlatButOneReachingHalfAMebibyteIs) {
  std::map<uint64_t, double> plateau;  // 25 us up to 32K, then the bandwidth term: a healthy two-node run
  for (uint64_t s = 8; s <= (64u << 20); s *= 2) plateau[s] = 25 + static_cast<double>(s) / 20000;
  EXPECT_FALSE(findFlatSpan(plateau).has_value());

  std::map<uint64_t, double> stuck;  // 500 us whatever the size up to 512K, then growing
  for (uint64_t s = 8; s <= (64u << 20); s *= 2) stuck[s] = s <= (512u << 10) ? 500 + (s % 3) : 500 + s / 1000.0;
  std::optional<FlatSpan> flat = findFlatSpan(stuck);
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(flat->loBytes, 8u);
  EXPECT_EQ(flat->hiBytes, 512u << 10);
  EXPECT_EQ(describeFlatSpan(*flat), "about 502.0 us at every size from 8 to 512K (17 sizes within 0.2%)");
  // One size short of the span (8 B .. 256K is 2^15) is not enough below a millisecond.
  stuck[512u << 10] = 700;
  EXPECT_FALSE(findFlatSpan(stuck).has_value());
  // Sizes that were not timed are no evidence either way.
  EXPECT_FALSE(findFlatSpan({}).has_value());
  EXPECT_FALSE(findFlatSpan({{8, 0.0}, {1u << 20, 0.0}}).has_value());
}

TEST(FlatTimings, AMillisecondQuantumIsFlatOverAFleetsNarrowerBuckets) {
  // `ab` sees the torch run's buckets 4K, 64K, 1M and 8M at about 4.4 ms each (tests/data/gpu-runs/.../torch-graphs).
  std::map<uint64_t, double> sliced{{4u << 10, 4450}, {64u << 10, 4389}, {1u << 20, 4394}, {8u << 20, 4442}};
  std::optional<FlatSpan> flat = findFlatSpan(sliced);
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(flat->hiBytes, 8u << 20);
  // The same buckets at a healthy latency are not flat, nor a quantum over less than 256x in size.
  std::map<uint64_t, double> fast{{4u << 10, 20}, {64u << 10, 20.5}, {1u << 20, 20.9}};
  EXPECT_FALSE(findFlatSpan(fast).has_value());
  std::map<uint64_t, double> narrow{{4u << 10, 4450}, {64u << 10, 4389}, {512u << 10, 4394}};
  EXPECT_FALSE(findFlatSpan(narrow).has_value());
}

}  // namespace
}  // namespace nccl_roce::verdicts
