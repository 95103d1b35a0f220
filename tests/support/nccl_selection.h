// What NCCL runs after getCollInfo, as each line of NCCL selects from the cost table (docs/nccl-versions.md,
// "NCCL 2.31 and 2.32", which names the source read): a model written from NCCL's code, independent of the tuner's
// own (tuner/decide.h), for tests that drive the tuner and check what each NCCL would then run. Tables are
// numAlgo x numProto floats, algorithm-major; a result is the entry's index, -1 when NCCL finds none.
#pragma once

#include <cfloat>
#include <vector>

namespace nccl_roce::testing {

enum class NcclLine {
  k230,  // 2.19 - 2.30 (topoGetAlgoInfo): the smallest entry >= 0 of the returned table, the first of equals
  k231,  // 2.31 and later (ncclTuningCompute): over the entries NCCL computed (those it passed >= 0; NCCL computes
         // them above 0 and passes -1 elsewhere), the plain minimum of what the tuner left there, negative values
         // not skipped, walked from the highest index down with `<` from FLT_MAX, so the last of equals
};

inline int ncclRuns(NcclLine line, const float* passed, const float* returned, int cells) {
  float best = FLT_MAX;
  int found = -1;
  if (line == NcclLine::k230) {
    for (int i = 0; i < cells; ++i) {
      if (returned[i] >= 0.0f && returned[i] < best) {
        best = returned[i];
        found = i;
      }
    }
    return found;
  }
  for (int i = cells - 1; i >= 0; --i) {
    if (!(passed[i] >= 0.0f)) continue;  // no candidate: whatever the tuner wrote there is never read
    if (returned[i] < best) {
      best = returned[i];
      found = i;
    }
  }
  return found;
}

inline int ncclRuns(NcclLine line, const std::vector<float>& passed, const std::vector<float>& returned) {
  return ncclRuns(line, passed.data(), returned.data(), static_cast<int>(passed.size()));
}

}  // namespace nccl_roce::testing
