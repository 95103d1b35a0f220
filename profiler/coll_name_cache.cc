#include "profiler/coll_name_cache.h"

#include "profiler/nccl_strings.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::profiler {

CollShape resolveCollShape(const char* func, const char* datatype, const char* algo, const char* proto, int nRanks) {
  TimingKey key;
  key.collective = static_cast<int8_t>(collectiveIndex(func));
  if (key.collective < 0) return {};
  // The tuner counts AllGather and ReduceScatter by their total bytes: without nRanks they cannot be sized.
  bool perRank = tuner::sizedOverRanks(key.collective);
  if (perRank && nRanks <= 0) return {};
  key.algorithm = static_cast<int8_t>(algorithmIndex(algo));
  key.protocol = static_cast<int8_t>(protocolIndex(proto));
  return {key.packed(), dataTypeSize(datatype) * static_cast<uint64_t>(perRank ? nRanks : 1)};
}

const CollShape& CollNameCache::lookup(const char* func, const char* datatype, const char* algo, const char* proto) {
  if (const CollShape* cached = find(func, datatype, algo, proto)) return *cached;
  Entry* set = &entries_[setOf(func, datatype, algo, proto) * 2];
  set[1] = set[0];
  set[0] = {func, datatype, algo, proto, resolveCollShape(func, datatype, algo, proto, nRanks_)};
  last_ = &set[0];
  return set[0].shape;
}

}  // namespace nccl_roce::profiler
