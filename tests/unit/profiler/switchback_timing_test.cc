// A switchback's timings inside one communicator (profiler/switchback_timing.h): after a change of arm a size
// bucket's next `washout` collectives are left out, and windows of `window` timed collectives give, per bucket and
// arm, one paired difference of mean log-histogram bins against the reference arm where both timed the bucket.
// Checked against a plain re-computation of the same definition.
#include "profiler/switchback_timing.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace nccl_roce::profiler {
namespace {

constexpr int kAllReduce = 4;

std::shared_ptr<telemetry::SwitchbackPlan> plan(uint32_t block, uint32_t washout, uint32_t window) {
  auto p = std::make_shared<telemetry::SwitchbackPlan>();
  p->arms = {"control", "candidate", "third"};
  p->block = block;
  p->washout = washout;
  p->window = window;
  p->armMap = std::make_shared<telemetry::ArmMap>();
  return p;
}

telemetry::SwitchbackTimings timingsOf(const SwitchbackTiming& s) {
  std::vector<SwitchbackTiming::Pair> pairs;
  s.copyPairs(0, s.pairs(), &pairs);
  return SwitchbackTiming::timingsOf(*s.plan(), pairs, s.windowsClosed(), s.unattributed());
}

struct Collective {
  int bucket, arm, bin;
};

// The definition, computed the plain way: each window's mean bin per (bucket, arm), differences against arm 0.
struct Expected {
  std::map<std::pair<int, int>, uint64_t> count, washedOut;
  std::map<std::pair<int, int>, double> windows, diffSum, diffSumSq;
  uint64_t windowsClosed = 0;
};
Expected expectedOf(const std::vector<Collective>& stream, uint32_t washout, uint32_t window) {
  Expected e;
  std::map<int, int> lastArm;
  std::map<int, uint32_t> left;
  std::map<std::pair<int, int>, std::pair<double, double>> open;  // (bucket, arm) -> (count, bin sum) this window
  uint32_t inWindow = 0;
  for (const Collective& c : stream) {
    const std::pair<int, int> key{c.bucket, c.arm};
    if (lastArm.count(c.bucket) == 0 || lastArm[c.bucket] != c.arm) {
      lastArm[c.bucket] = c.arm;
      left[c.bucket] = washout;
    }
    if (left[c.bucket] > 0) {
      --left[c.bucket];
      ++e.washedOut[key];
      continue;
    }
    ++e.count[key];
    open[key].first += 1;
    open[key].second += c.bin;
    if (++inWindow < window) continue;
    for (const auto& [k, sums] : open) {
      auto ref = open.find({k.first, 0});
      if (k.second == 0 || sums.first == 0 || ref == open.end() || ref->second.first == 0) continue;
      const double d = sums.second / sums.first - ref->second.second / ref->second.first;
      e.windows[k] += 1;
      e.diffSum[k] += d;
      e.diffSumSq[k] += d * d;
    }
    open.clear();
    inWindow = 0;
    ++e.windowsClosed;
  }
  return e;
}

void expectMatches(const telemetry::SwitchbackTimings& t, const Expected& e) {
  EXPECT_EQ(t.windowsClosed, e.windowsClosed);
  size_t seen = 0;
  for (const telemetry::SwitchbackCell& c : t.cells) {
    const std::pair<int, int> key{c.bucket, c.arm};
    ++seen;
    EXPECT_EQ(c.count, e.count.count(key) ? e.count.at(key) : 0u) << c.bucket << "/" << c.arm;
    EXPECT_EQ(c.washedOut, e.washedOut.count(key) ? e.washedOut.at(key) : 0u) << c.bucket << "/" << c.arm;
    const double windows = e.windows.count(key) ? e.windows.at(key) : 0;
    EXPECT_EQ(static_cast<double>(c.windows), windows) << c.bucket << "/" << c.arm;
    EXPECT_NEAR(c.diffSum, e.diffSum.count(key) ? e.diffSum.at(key) : 0, 1e-6) << c.bucket << "/" << c.arm;
    EXPECT_NEAR(c.diffSumSq, e.diffSumSq.count(key) ? e.diffSumSq.at(key) : 0, 1e-6) << c.bucket << "/" << c.arm;
  }
  EXPECT_GT(seen, 0u);
}

// Turns of `block` collectives over three arms and three buckets, some buckets rare: the arms' and buckets' mix
// NCCL's calls give a switchback.
std::vector<Collective> streamOf(uint32_t block, int collectives, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Collective> out;
  for (int i = 0; i < collectives; ++i) {
    const int arm = static_cast<int>((static_cast<uint32_t>(i) / block * 7 + 3) % 3);
    const int r = static_cast<int>(random() % 100);
    const int bucket = r < 60 ? 16 : r < 95 ? 18 : 22;  // the last one rare
    out.push_back({bucket, arm, 300 + static_cast<int>(random() % 40) + arm * 3});
  }
  return out;
}

TEST(SwitchbackTiming, WindowsPairEachArmWithTheReferenceInEveryBucketBothTimed) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SwitchbackTiming s(plan(16, 2, 96));
    std::vector<Collective> stream = streamOf(16, 20000, seed);
    for (const Collective& c : stream) s.record(kAllReduce, c.bucket, c.arm, c.bin);
    expectMatches(timingsOf(s), expectedOf(stream, 2, 96));
  }
}

TEST(SwitchbackTiming, ASnapshotCountsOnlyClosedWindows) {
  SwitchbackTiming s(plan(4, 0, 64));
  std::vector<Collective> stream = streamOf(4, 64 * 3 + 17, 9);  // three windows and part of a fourth
  for (const Collective& c : stream) s.record(kAllReduce, c.bucket, c.arm, c.bin);
  const telemetry::SwitchbackTimings t = timingsOf(s);
  expectMatches(t, expectedOf(stream, 0, 64));
  EXPECT_EQ(t.windowsClosed, 3u);
}

TEST(SwitchbackTiming, CollectivesNoSingleArmDecidedAreCountedAsUnattributed) {
  SwitchbackTiming s(plan(16, 2, 64));
  s.record(kAllReduce, 16, telemetry::ArmMap::kShared, 300);
  s.record(kAllReduce, 16, telemetry::ArmMap::kNoArm, 300);
  s.record(kAllReduce, 64, 0, 300);  // no bucket of a 64-bit size
  s.record(7, 16, 0, 300);           // no collective the tuner knows
  EXPECT_EQ(s.unattributed(), 4u);
  EXPECT_TRUE(timingsOf(s).cells.empty());
}

}  // namespace
}  // namespace nccl_roce::profiler
