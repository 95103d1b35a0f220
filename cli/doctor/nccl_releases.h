// What each NCCL release takes from this library: per plugin type, the newest table version both declare
// (docs/nccl-versions.md, "Which table each release takes", which tests/unit/doctor/nccl_releases_test.cc compares
// with this). The doctor names them for the NCCL it finds, and says when that NCCL is newer than any known here.
#pragma once

#include <string>

namespace nccl_roce::doctor {

// NCCL's version code (ncclGetVersion: 23102 for 2.31.2) of the newest release this build knows.
inline constexpr int kNewestKnownNccl = 23206;

// The exported symbol NCCL `version` takes for each plugin type; "" where it takes none of ours.
struct TakenTables {
  std::string net, tuner, profiler, env;
};
TakenTables tablesTakenBy(int version);

// "2.31.2" from 23102.
std::string ncclVersionText(int version);

}  // namespace nccl_roce::doctor
