// A switchback's collectives captured into CUDA graphs, as NCCL 2.28+ shows them to a profiler: at capture a CollApi
// event flagged graphCaptured, just before the tuner's one call for it; at every replay a Coll event whose parent is
// that CollApi event's handle. Each replay is timed for the captured collective, which the capture's tuner call put
// in a turn; eager collectives keep the windows; a replay never lands in a window.
#include <gtest/gtest.h>

#include <memory>

#include "profiler/collective_tracker.h"

namespace nccl_roce::profiler {
namespace {

constexpr int kAllReduce = 4, kRing = 1, kLL = 0, kLL128 = 1;

CollEvent allReduce(uint64_t bytes, const char* proto, const void* group, const void* parent = nullptr) {
  CollEvent c{"AllReduce", "ncclInt8", "RING", proto, bytes, 1, group};
  c.parent = parent;
  return c;
}

void runKernel(CollectiveTracker& t, void* coll, uint64_t start, uint64_t stop) {
  void* ch = t.startChannel(coll, 0, start);
  t.stopChannel(ch, stop);
}

// A tracker in a two-arm switchback of turns of 2 tuner calls, 1 washed out: the control decides Ring/LL128 and the
// candidate Ring/LL in the 16K bucket (as the tuner notes them).
struct Switchback {
  explicit Switchback(bool seesCaptures = true, uint32_t index = 5) {
    CollectiveTracker::Config config;
    config.index = index;
    config.firstGeneration = 2000 + index;
    config.slots = 64;
    config.seesCaptures = seesCaptures;
    tracker = std::make_unique<CollectiveTracker>(config);
    arms->note(kAllReduce, 14, kRing, kLL128, 0, 0);
    arms->note(kAllReduce, 14, kRing, kLL, 0, 1);
    auto plan = std::make_shared<telemetry::SwitchbackPlan>();
    plan->arms = {"control", "candidate"};
    plan->block = 2;
    plan->washout = 1;
    plan->window = 64;
    plan->turnsPerRound = 2;
    plan->armMap = arms;
    plan->calls = calls;
    tracker->enableSwitchback(plan);
  }
  // NCCL's capture of one all-reduce of 16 KiB that tuner call `call` decides.
  void* capture(uint64_t call) {
    calls->store(call);
    return tracker->startCapture({"AllReduce", "ncclInt8", 16384});
  }
  void replay(void* captured, const char* proto, uint64_t ns) {
    void* coll = tracker->startCollective(allReduce(16384, proto, tracker->startGroup(), captured));
    runKernel(*tracker, coll, 1000, 1000 + ns);
  }
  telemetry::SwitchbackTimings timings() const { return *tracker->timings().switchback; }

  std::shared_ptr<telemetry::ArmMap> arms = std::make_shared<telemetry::ArmMap>();
  std::shared_ptr<telemetry::CountedCalls> calls = std::make_shared<telemetry::CountedCalls>();
  std::unique_ptr<CollectiveTracker> tracker;
};

TEST(CaptureTracking, EachReplayIsTimedForTheCollectiveItsCaptureTurnDecided) {
  Switchback s;
  // A graph of four all-reduces, captured at tuner calls 10-13: turns 5 (calls 10, 11) and 6 (12, 13).
  void* g[4] = {s.capture(10), s.capture(11), s.capture(12), s.capture(13)};
  for (void* h : g) ASSERT_NE(h, nullptr);
  const char* proto[4] = {"LL128", "LL128", "LL", "LL"};  // turn 5 the control's, turn 6 the candidate's
  for (int replay = 0; replay < 30; ++replay) {
    for (int i = 0; i < 4; ++i) s.replay(g[i], proto[i], 20000 + 1000 * static_cast<uint64_t>(i));
  }
  telemetry::SwitchbackTimings t = s.timings();
  EXPECT_TRUE(t.capturesTracked);
  EXPECT_EQ(t.captured, 4u);
  EXPECT_EQ(t.turnsPerRound, 2u);
  ASSERT_EQ(t.turns.size(), 2u);
  for (const telemetry::CapturedTurn& turn : t.turns) {
    EXPECT_EQ(turn.bucket, 14);
    EXPECT_EQ(turn.arm, turn.turn == 5 ? 0 : 1);
    EXPECT_EQ(turn.washedOut, 1u) << "the first call of each turn";
    EXPECT_EQ(turn.positions, 1u);
    EXPECT_EQ(turn.count, 30u) << "every replay of the kept position";
  }
  EXPECT_GT(t.turns[1].meanBins, t.turns[0].meanBins) << "22 us against 21 us";
  EXPECT_TRUE(t.cells.empty()) << "replays never enter the windows";
  EXPECT_EQ(t.windowsClosed, 0u);
}

TEST(CaptureTracking, EagerCollectivesStayInTheWindowsBesideReplays) {
  Switchback s;
  void* captured = s.capture(0);
  for (int i = 0; i < 100; ++i) {
    s.replay(captured, "LL128", 20000);
    void* eager = s.tracker->startCollective(allReduce(16384, i % 4 < 2 ? "LL128" : "LL", s.tracker->startGroup()));
    runKernel(*s.tracker, eager, 0, 21000);
  }
  telemetry::SwitchbackTimings t = s.timings();
  uint64_t eager = 0, washed = 0;
  for (const telemetry::SwitchbackCell& c : t.cells) eager += c.count, washed += c.washedOut;
  EXPECT_EQ(eager + washed, 100u);
  ASSERT_EQ(t.turns.size(), 1u);
  EXPECT_EQ(t.turns[0].washedOut, 1u) << "call 0 opens its turn";
}

TEST(CaptureTracking, AReplayThatRanNoSingleArmsChoiceIsUnattributed) {
  Switchback s;
  s.arms->note(kAllReduce, 14, kRing, kLL, 0, 0);  // both arms decided Ring/LL: an A/A choice
  void* captured = s.capture(1);
  for (int i = 0; i < 10; ++i) s.replay(captured, "LL", 20000);
  telemetry::SwitchbackTimings t = s.timings();
  EXPECT_EQ(t.unattributed, 10u);
  EXPECT_TRUE(t.turns.empty());
  EXPECT_TRUE(t.cells.empty());
}

TEST(CaptureTracking, CapturesPastWhatIsKeptAreCountedAndTheirReplaysLeftUntimed) {
  Switchback s;
  void* last = nullptr;
  for (uint32_t i = 0; i < CaptureTiming::kMaxSlots + 3; ++i) last = s.capture(i);
  ASSERT_NE(last, nullptr) << "still told from an eager collective";
  for (int i = 0; i < 5; ++i) s.replay(last, "LL", 20000);
  telemetry::SwitchbackTimings t = s.timings();
  EXPECT_EQ(t.capturedUntracked, 3u);
  EXPECT_EQ(t.captured, CaptureTiming::kMaxSlots + 3);
  EXPECT_EQ(t.unattributed, 5u);
  EXPECT_TRUE(t.cells.empty()) << "no replay enters a window";
}

TEST(CaptureTracking, WithoutCollApiEventsOrOutsideASwitchbackNothingIsCaptured) {
  Switchback old(/*seesCaptures=*/false);  // NCCL before 2.28
  EXPECT_EQ(old.capture(0), nullptr);
  EXPECT_FALSE(old.timings().capturesTracked);
  CollectiveTracker::Config config;
  config.seesCaptures = true;
  CollectiveTracker plain(config);
  EXPECT_EQ(plain.startCapture({"AllReduce", "ncclInt8", 16384}), nullptr);
}

TEST(CaptureTracking, ACaptureHandleOfAnotherTrackerIsNoReplayHere) {
  Switchback a, b(true, 6);
  void* foreign = b.capture(1);
  for (int i = 0; i < 4; ++i) a.replay(foreign, "LL", 20000);  // as an eager collective: windows
  telemetry::SwitchbackTimings t = a.timings();
  EXPECT_TRUE(t.turns.empty());
  uint64_t counted = 0;
  for (const telemetry::SwitchbackCell& c : t.cells) counted += c.count + c.washedOut;
  EXPECT_EQ(counted, 4u);
}

}  // namespace
}  // namespace nccl_roce::profiler
