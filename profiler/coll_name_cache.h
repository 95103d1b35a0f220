// A Coll event's four names (collective, data type, algorithm, protocol) turned into what timing needs, and
// remembered by their text: after a communicator's first collectives, a Coll event costs four string
// comparisons instead of four lookups through NCCL's name lists (telemetry/nccl_names.h). NCCL passes the same static
// strings every time today but does not promise it, so a hit compares the names' contents, never their
// addresses: a reused buffer cannot file timings under the wrong key. Not thread safe: its tracker locks for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "telemetry/cell_key.h"

namespace nccl_roce::profiler {

// What a collective's names mean for its timing.
struct CollShape {
  telemetry::CellKey key;     // collective, algorithm, protocol; collective -1: not timed
  uint64_t elementBytes = 0;  // per element, as the tuner counts them: x nRanks for AllGather and ReduceScatter

  bool timed() const { return key.collective >= 0; }
  // The key of a collective of this shape with `count` elements on `channels` channels, timed from `source`.
  telemetry::CellKey keyOf(uint64_t count, int channels, telemetry::TimingSource source) const;
};

// By name, without the cache. Not timed: a collective the tuner never sees (AllToAll, Send), or AllGather and
// ReduceScatter where nRanks <= 0 (not known: profiler v1-v3), which cannot be sized as the tuner sizes them.
CollShape resolveCollShape(const char* func, const char* datatype, const char* algo, const char* proto, int nRanks);

class CollNameCache {
 public:
  static constexpr size_t kMaxEntries = 32;  // combinations kept; past them the oldest is replaced

  explicit CollNameCache(int nRanks) : nRanks_(nRanks) { entries_.reserve(kMaxEntries); }

  // The shape of these names (nullptr reads as ""), resolving them when they are not cached. The reference
  // stays valid until kMaxEntries further combinations have been looked up.
  const CollShape& lookup(const char* func, const char* datatype, const char* algo, const char* proto);

 private:
  struct Entry {
    std::string func, datatype, algo, proto;  // copies: what the cached shape was resolved from
    CollShape shape;
    // The protocol first: of the four, it is the one a communicator's collectives vary most.
    bool is(const char* f, const char* d, const char* a, const char* p) const {
      return std::strcmp(proto.c_str(), p) == 0 && std::strcmp(algo.c_str(), a) == 0 &&
             std::strcmp(datatype.c_str(), d) == 0 && std::strcmp(func.c_str(), f) == 0;
    }
  };

  std::vector<Entry> entries_;
  size_t replaceNext_ = 0;  // once full
  int nRanks_;
};

}  // namespace nccl_roce::profiler
