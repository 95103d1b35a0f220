// vLLM's decode under a switchback, simulated with a known truth: per communicator, NCCL's tuner calls and the
// profiler's records as the built library makes them, read back through statistics files by `nccl-roce ab`'s own
// comparison. At start-up one CUDA graph per batch size is captured, largest first (vLLM's
// cudagraph_capture_sizes, reversed), each holding the decode step's all-reduces of batch x 16 KiB: two per layer
// (attention's output projection, then the MLP's), and with `embedding` one more first (the vocabulary-parallel
// embedding's). Each captured all-reduce asks the tuner once: its turn, and so its arm, is fixed for the run. Then
// `steps` decode steps replay one graph each, the batch size wandering (a reflecting random walk over the graphs),
// and about every `prefillEvery` steps an eager prefill runs the layers' all-reduces at its own size, asking the
// tuner each time.
//
// A collective's log time: its size's base, the communicator's placement, load drift over the run, noise
// correlated between neighbours (AR(1)), each rank's own noise, the arm's true effect, an asymmetric carry-over into
// the candidate after an arm change, and position effects fixed for the run: the first all-reduce of a step slower
// (`stepSkew`: the ranks' launch skew lands there), attention's against the MLP's (`mlpFactor`), a periodic load
// aligned with positions (`periodicLoad` over `period` positions), one all-reduce every `everyNth` slower, a trend
// over the step (`trend`), and a fixed random factor per position (`positionNoise`). Replays go through the
// profiler's capture slots (profiler/capture_timing.h) and eager collectives through its windows, unless
// `tellCaptures` is false: then every collective goes into the windows, as a profiler that cannot tell replays
// apart (NCCL before 2.28) records them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fleet/fleet_records.h"
#include "tests/calibration/switchback_simulation.h"

namespace nccl_roce::fleet::calibration {

// vLLM's capture sizes: 1, 2, 4, then 8 to 512 by 8 (67 graphs; vLLM through 0.10). `current` gives today's: 8 to
// 248 by 8, then 256 to 512 by 16 (51 graphs).
std::vector<int> vllmCaptureSizes(bool current = false);

struct CaptureSpec {
  std::vector<int> batchSizes = vllmCaptureSizes();  // ascending; captured largest first
  int layers = 32;
  bool embedding = false;
  int warmups = 0;  // eager forwards before each capture (vLLM's cudagraph_num_of_warmups)
  int communicators = 1, ranks = 2;
  uint64_t steps = 20000;
  double prefillEvery = 20;
  uint32_t block = 4, washout = 2;
  double candidateEffect = 1.0;  // the truth: candidate / control, everywhere
  bool tellCaptures = true;
  // The schedule's draw mirrored: every turn runs the other of the two arms. With two arms of equal weight each
  // round's order is a fair coin, so the mirrored draw is as likely as the schedule's own.
  bool mirrorSchedule = false;
  // Position effects (factors on a collective's time; 1 or 0: none).
  double stepSkew = 1.0, mlpFactor = 1.0, periodicLoad = 0, everyNthFactor = 1.0, trend = 0, positionNoise = 0;
  int period = 8, everyNth = 4;
  double noise = 0.10, autocorrelation = 0.7, drift = 0.3, rankNoise = 0.02, betweenCommunicators = 0.05;
  double carryOver = 0.3;
  uint32_t carryOverLength = 2;
  uint64_t seed = 1;
};

std::vector<SimulatedFile> simulateCaptureFiles(const CaptureSpec& spec);
std::vector<CommunicatorRecord> simulateCaptureFleet(const CaptureSpec& spec);

// What `nccl-roce ab` said over `trials` simulated runs (seeds seed, seed + 1, ...), for the collectives replayed
// from graphs (or, where captures are not told apart, for the windows that hold every collective), per bucket and
// per summary. With `mirroredPairs` the runs come in pairs (seeds seed, seed, seed + 1, seed + 1, ...), the second
// of each with the schedule mirrored (antithetic draws): the chance of a verdict that turns on the sign of one round
// is then measured without that coin's spread over the runs, still unbiased.
struct BucketTally {
  int verdicts = 0, slower = 0, faster = 0, insufficient = 0, intervals = 0, covered = 0;
  double units = 0;  // summed over trials
};
struct CaptureTally {
  std::map<int, BucketTally> buckets;  // by size bucket
  int summaries = 0, summarySlower = 0, summaryFaster = 0;
  int cells() const;
  int calls() const;  // "faster" or "slower", in buckets
  int slowerCells() const;
  double callRate() const { return cells() ? static_cast<double>(calls()) / cells() : 0; }
  double summaryCallRate() const {
    return summaries ? static_cast<double>(summarySlower + summaryFaster) / summaries : 0;
  }
  double coverage() const;
};
CaptureTally tallyCaptureTrials(CaptureSpec spec, int trials, bool mirroredPairs = false);

}  // namespace nccl_roce::fleet::calibration
