// Timings that do not grow with the message size. Several processes sharing one GPU without MPS run their kernels
// in turns (time slices): each collective then waits for the other processes' slices and takes about one quantum
// whatever its size (on the H200 of docs/gpu-proof.md about 4.5 ms from 8 B to 4 MiB). A saturated or throttled
// device looks the same. Such times measure the wait, not the collective: no comparison of them means anything,
// and `sweep compare`, `ab` and the GPU proof say so instead of giving a verdict on them.
//
// A real collective's time grows with its size: even where latency dominates, 8 B and 512 KiB differ by tens of
// percent on every fabric in tests/data/nccl-tests (NVLink, InfiniBand, RoCE, EFA, TCPXO). So a span of sizes
// at least `minSpan` apart whose times stay within `tolerance` of one another is flat; and so is a narrower one, at
// least `quantumSpan` apart, at a millisecond or more: no fabric takes a millisecond for a collective of a few KiB,
// while a time slice is about that long (a fleet's size buckets of 4K..8M, `ab`'s view of the same H200).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace nccl_roce::verdicts {

struct FlatCriteria {
  double tolerance = 0.05;                  // largest time at most (1 + tolerance) x the smallest
  uint64_t minSpan = uint64_t{1} << 16;     // largest size over smallest: 8 B .. 512 KiB
  uint64_t quantumSpan = uint64_t{1} << 8;  // the same at quantumUs or more: 4K .. 1M
  double quantumUs = 1000;
};

struct FlatSpan {
  uint64_t loBytes = 0, hiBytes = 0;  // the sizes at both ends (measured ones)
  int sizes = 0;                      // sizes measured in the span
  double medianUs = 0;                // the common time: the quantum
  double spread = 0;                  // largest over smallest time in the span, minus 1
};

// The widest run of consecutive sizes (by size ratio) whose times stay within the tolerance, when it spans at
// least minSpan (or quantumSpan at a median of quantumUs or more); nullopt otherwise. Sizes with no positive time
// are ignored.
std::optional<FlatSpan> findFlatSpan(const std::map<uint64_t, double>& usBySize, const FlatCriteria& criteria = {});

// "about 4.52 ms at every size from 8 to 4M (18 sizes within 0.6%)"
std::string describeFlatSpan(const FlatSpan& span);

// The sentence reports give after naming whose times are flat.
inline constexpr const char* kFlatMeaning =
    "the device was time-sliced between processes (several ranks on one GPU without MPS) or otherwise saturated: "
    "these times are the wait for a turn on the GPU, not the collective, so no performance verdict holds on them";

}  // namespace nccl_roce::verdicts
