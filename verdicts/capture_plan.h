// What `ab` will say about collectives replayed from CUDA graphs in a switchback (`nccl-roce ab plan --graphs`,
// docs/ab-testing.md "Planning an experiment"): their unit is a round of turns at capture inside one graph
// (fleet/capture_rounds.h), so how many units a size bucket gets is fixed by the capture layout (which graphs,
// how many collectives each, in which order, the block and washout), not by how long the experiment runs; more
// replays only make each unit less noisy. The plan lays the turns over the captures as the tuner counts them, draws
// the schedule's order many times over (in mirrored pairs), and runs the very verdict `ab` runs
// (verdicts/signed_rank.h) on units made of the positions' own speeds (the position effects given) and the
// replays' noise, so its power is the simulation's, not an approximation of it. From observed units (a statistics
// file of a running experiment) it takes their spread as it is instead.
#pragma once

#include <cstdint>
#include <vector>

namespace nccl_roce::verdicts {

struct CaptureLayout {
  // The graphs in the order they are captured, each one's size bucket (or any label of what `ab` compares alike:
  // graphs of one bucket pool their units).
  std::vector<int> graphBuckets;
  int perGraph = 64;  // collectives captured per graph (vLLM: two all-reduces per layer, one more with TP embedding)
  uint64_t callsBefore = 0;   // tuner calls before the first capture (NCCL's start-up collectives, vLLM's profile run)
  uint64_t callsBetween = 0;  // tuner calls between two captures (eager warm-up forwards)
  uint32_t block = 4, washout = 2, turnsPerRound = 2;
};

struct CapturePlanInputs {
  CaptureLayout layout;
  // The log of each position's own speed (length perGraph; empty: all alike), the same in every graph.
  std::vector<double> positionEffects;
  double unitNoise = 0.005;  // log-sd of a unit's difference that replays' noise leaves (shrinks with replays)
  int communicators = 1;     // independent captures pooled (pods x communicators carrying the bucket)
  double effect = 0.05, confidence = 0.95, minEffect = 0.01;
  int draws = 400;  // of the schedule, in mirrored pairs (each draw and its arms swapped)
  uint64_t seed = 1;
};

struct BucketPlan {
  int bucket = 0;
  int graphs = 0;
  double units = 0;  // capture rounds of one communicator that hold both arms in one graph (averaged over draws)
  double power = 0;  // the share of draws in which `ab` says the arm differs, on the effect's side
};

// Per bucket, in ascending order.
std::vector<BucketPlan> planCaptures(const CapturePlanInputs& in);

// The power of the same verdict on units whose spread is `differences` (observed, in natural-log units): under no
// effect each could have come out with either sign around their centre, so the plan redraws those signs around a
// true `effect`, with `copies` independent captures of the same spread pooled.
double powerOfObservedUnits(const std::vector<double>& differences, double effect, int copies, double confidence,
                            double minEffect, int draws, uint64_t seed);

}  // namespace nccl_roce::verdicts
