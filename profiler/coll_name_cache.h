// A Coll event's four names (collective, data type, algorithm, protocol) turned into what timing needs, and
// remembered by the names' addresses. NCCL passes the same static strings every time, so after a
// communicator's first collectives a Coll event costs one hash of four pointers and four comparisons instead
// of four lookups by name. A miss (a new combination, or one pushed out) resolves by name (nccl_strings.h).
// Not thread safe: one per communicator, used by the thread that starts its collectives.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/inline.h"
#include "profiler/timing_key.h"
#include "tuner/size_bucket.h"

namespace nccl_roce::profiler {

// What a collective's names mean for its timing.
struct CollShape {
  // TimingKey::packed() of the collective, algorithm and protocol (size bucket, channels and source 0);
  // 0 for a collective that is not timed (one the tuner never sees, or AllGather/ReduceScatter without nRanks).
  uint64_t key = 0;
  uint64_t elementBytes = 0;  // per element, as the tuner counts them: x nRanks for AllGather and ReduceScatter

  // The packed key of a collective of this shape with `count` elements over `channels` channels; 0 if untimed.
  uint64_t keyOf(uint64_t count, int channels) const {
    if (key == 0) return 0;
    return key | uint64_t(tuner::sizeBucket(count * elementBytes)) << TimingKey::kBucketShift |
           uint64_t{static_cast<uint8_t>(channels)} << TimingKey::kChannelsShift;
  }
};

// By name, without the cache. nRanks <= 0: not known (profiler v1-v3).
CollShape resolveCollShape(const char* func, const char* datatype, const char* algo, const char* proto, int nRanks);

class CollNameCache {
 public:
  explicit CollNameCache(int nRanks) : nRanks_(nRanks) {}
  CollNameCache(const CollNameCache&) = delete;  // last_ points into it
  CollNameCache& operator=(const CollNameCache&) = delete;

  // The shape of these names, resolving them on a miss.
  const CollShape& lookup(const char* func, const char* datatype, const char* algo, const char* proto);
  // The same if cached, nullptr on a miss. Inline: once per collective. The previous Coll event's entry is
  // tried first, since consecutive collectives mostly share their names (every layer's all-reduce in a decode
  // step has the same size, so the same algorithm and protocol); then the set the names hash to. Two ways per
  // set, so two combinations whose addresses hash alike (say one all-reduce on LL and on SIMPLE) both stay; a
  // miss moves the set's first way to its second.
  NCCL_ROCE_ALWAYS_INLINE const CollShape* find(const char* func, const char* datatype, const char* algo,
                                                const char* proto) {
    if (last_->is(func, datatype, algo, proto)) return &last_->shape;
    Entry* set = &entries_[setOf(func, datatype, algo, proto) * 2];
    if (set[0].is(func, datatype, algo, proto)) return &(last_ = &set[0])->shape;
    if (set[1].is(func, datatype, algo, proto)) return &(last_ = &set[1])->shape;
    return nullptr;
  }

 private:
  // 64 bytes, so a set is found by a shift. Empty entries have four nullptrs and the shape those resolve to
  // (not timed), so they need no flag.
  struct alignas(64) Entry {
    const char* func = nullptr;
    const char* datatype = nullptr;
    const char* algo = nullptr;
    const char* proto = nullptr;
    CollShape shape;
    bool is(const char* f, const char* d, const char* a, const char* p) const {
      return func == f && datatype == d && algo == a && proto == p;
    }
  };
  static constexpr int kSetBits = 3;
  static size_t setOf(const char* f, const char* d, const char* a, const char* p) {
    uint64_t sum = reinterpret_cast<uintptr_t>(f) + reinterpret_cast<uintptr_t>(d) + reinterpret_cast<uintptr_t>(a) +
                   reinterpret_cast<uintptr_t>(p);
    return static_cast<size_t>((sum * 0x9E3779B97F4A7C15ull) >> (64 - kSetBits));
  }

  Entry entries_[2 << kSetBits];
  Entry* last_ = &entries_[0];  // the previous event's
  int nRanks_;
};

}  // namespace nccl_roce::profiler
