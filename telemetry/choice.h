// What the tuner's levers chose for a call: the algorithm, the protocol, the channels and the chunk size. One type
// wherever a choice is kept, compared or named: the key decisions and timings are counted under (cell_key.h), the
// fleet's decisions and `ab fit`'s configurations (fleet/), a sweep's forced configuration
// (nccl-tests-integration/sweep/forced_config.h) and the names generated rules take from it (policy/rule_text.h).
// A new lever is a field here first; docs/architecture.md lists what else it touches.
#pragma once

#include <cstdint>
#include <tuple>

#include "telemetry/chunk_size.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::telemetry {

struct Choice {
  int8_t algorithm = -1;   // tuner index (nccl_names.h); -1: left to NCCL, or NCCL's pick not known
  int8_t protocol = -1;    // likewise
  uint8_t channels = 0;    // 0: NCCL decides; for a timing, what the kernel ran on
  uint32_t chunkSize = 0;  // ChunkSize::code(): bytes, an odd code for a factor of NCCL's own ("x2"); 0 NCCL's own

  // From the tuner's values: indices out of NCCL's ranges become -1 (unknown), channels past 255 saturate.
  static Choice of(int algorithm, int protocol, int channels, uint32_t chunkSize = 0) {
    return Choice{indexOrUnknown(algorithm, kMaxAlgorithms), indexOrUnknown(protocol, kNumProtocols),
                  static_cast<uint8_t>(channels < 0     ? 0
                                       : channels > 255 ? 255
                                                        : channels),
                  chunkSize};
  }

  ChunkSize chunk() const { return ChunkSize::fromCode(chunkSize); }
  // Every lever left to NCCL.
  bool isNccl() const { return algorithm < 0 && protocol < 0 && channels == 0 && chunkSize == 0; }

  bool operator==(const Choice& o) const {
    return algorithm == o.algorithm && protocol == o.protocol && channels == o.channels && chunkSize == o.chunkSize;
  }
  bool operator!=(const Choice& o) const { return !(*this == o); }
  // By algorithm, protocol, channels, then chunk size code: the order statistics files list a cell's choices in.
  bool operator<(const Choice& o) const {
    return std::tie(algorithm, protocol, channels, chunkSize) <
           std::tie(o.algorithm, o.protocol, o.channels, o.chunkSize);
  }

 private:
  static int8_t indexOrUnknown(int index, int count) {
    return static_cast<int8_t>(index >= 0 && index < count ? index : -1);
  }
};

}  // namespace nccl_roce::telemetry
