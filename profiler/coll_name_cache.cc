#include "profiler/coll_name_cache.h"

#include <algorithm>

#include "profiler/nccl_strings.h"
#include "tuner/nccl_names.h"
#include "tuner/size_bucket.h"

namespace nccl_roce::profiler {

tuner::CellKey CollShape::keyOf(uint64_t count, int channels, tuner::TimingSource source) const {
  tuner::CellKey k = key;
  k.bucket = static_cast<uint8_t>(tuner::sizeBucket(count * elementBytes));
  k.channels = static_cast<uint8_t>(std::clamp(channels, 0, 255));
  k.source = source;
  return k;
}

CollShape resolveCollShape(const char* func, const char* datatype, const char* algo, const char* proto, int nRanks) {
  int collective = collectiveIndex(func);
  if (collective < 0) return {};
  // The tuner counts AllGather and ReduceScatter by their total bytes: without nRanks they cannot be sized.
  bool perRank = tuner::sizedOverRanks(collective);
  if (perRank && nRanks <= 0) return {};
  CollShape shape;
  shape.key = tuner::cellKey(collective, 0, algorithmIndex(algo), protocolIndex(proto), 0);
  shape.elementBytes = dataTypeSize(datatype) * static_cast<uint64_t>(perRank ? nRanks : 1);
  return shape;
}

const CollShape& CollNameCache::lookup(const char* func, const char* datatype, const char* algo, const char* proto) {
  auto text = [](const char* name) { return name != nullptr ? name : ""; };
  func = text(func), datatype = text(datatype), algo = text(algo), proto = text(proto);
  for (const Entry& e : entries_) {
    if (e.is(func, datatype, algo, proto)) return e.shape;
  }
  Entry fresh{func, datatype, algo, proto, resolveCollShape(func, datatype, algo, proto, nRanks_)};
  if (entries_.size() < kMaxEntries) {
    entries_.push_back(std::move(fresh));
    return entries_.back().shape;
  }
  Entry& replaced = entries_[replaceNext_];
  replaceNext_ = (replaceNext_ + 1) % kMaxEntries;
  replaced = std::move(fresh);
  return replaced.shape;
}

}  // namespace nccl_roce::profiler
