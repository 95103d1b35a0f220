#include "profiler/coll_name_cache.h"

#include <algorithm>

#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::profiler {

telemetry::CellKey CollShape::keyOf(uint64_t count, int channels, telemetry::TimingSource source) const {
  telemetry::CellKey k = key;
  k.bucket = static_cast<uint8_t>(telemetry::sizeBucket(count * elementBytes));
  k.choice.channels = static_cast<uint8_t>(std::clamp(channels, 0, 255));
  k.source = source;
  return k;
}

CollShape resolveCollShape(const char* func, const char* datatype, const char* algo, const char* proto, int nRanks) {
  auto text = [](const char* name) { return name != nullptr ? std::string_view(name) : std::string_view(); };
  std::optional<int> collective = telemetry::parseCollective(text(func));
  if (!collective) return {};
  // The tuner counts AllGather and ReduceScatter by their total bytes: without nRanks they cannot be sized.
  bool perRank = telemetry::sizedOverRanks(*collective);
  if (perRank && nRanks <= 0) return {};
  CollShape shape;
  shape.key = telemetry::cellKey(*collective, 0, telemetry::parseAlgorithm(text(algo)).value_or(-1),
                                 telemetry::parseProtocol(text(proto)).value_or(-1), 0);
  shape.elementBytes = telemetry::dataTypeSize(text(datatype)) * static_cast<uint64_t>(perRank ? nRanks : 1);
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
