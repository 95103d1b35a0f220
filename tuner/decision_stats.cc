#include "tuner/decision_stats.h"

#include <unistd.h>

#include <vector>

#include "common/file.h"
#include "common/strings.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::tuner {

int sizeBucket(uint64_t bytes) { return bytes <= 1 ? 0 : 63 - __builtin_clzll(bytes); }

void DecisionStats::record(int collective, uint64_t bytes, int algorithm, int protocol, int channels, int rule,
                           bool unavailable) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_[Key{collective, sizeBucket(bytes), algorithm, protocol, channels, rule}];
  ++totals_.calls;
  if (rule >= 0 && !unavailable) ++totals_.fromRules;
  if (unavailable) ++totals_.unavailable;
}

DecisionStats::Totals DecisionStats::totals() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return totals_;
}

nlohmann::ordered_json DecisionStats::toJson(const Policy& policy) const {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::ordered_json out;
  out["calls"] = totals_.calls;
  out["from_rules"] = totals_.fromRules;
  out["unavailable"] = totals_.unavailable;
  out["decisions"] = nlohmann::ordered_json::array();
  for (const auto& [key, count] : counts_) {
    auto [collective, bucket, algorithm, protocol, channels, rule] = key;
    uint64_t lo = bucket == 0 ? 0 : (1ull << bucket);
    uint64_t hi = bucket == 63 ? UINT64_MAX : (1ull << (bucket + 1)) - 1;
    nlohmann::ordered_json d;
    d["collective"] = collectiveName(collective);
    d["bucket"] = formatByteSize(lo) + "-" + (bucket == 63 ? std::string("16E") : formatByteSize(hi + 1));
    d["size_min"] = lo;
    d["size_max"] = hi;
    d["algorithm"] = algorithm >= 0 ? nlohmann::ordered_json(algorithmName(algorithm)) : nlohmann::ordered_json(nullptr);
    d["protocol"] = protocol >= 0 ? nlohmann::ordered_json(protocolName(protocol)) : nlohmann::ordered_json(nullptr);
    d["channels"] = channels;  // 0: NCCL decided
    d["source"] = rule >= 0 ? "rule" : "nccl";
    if (rule >= 0 && static_cast<size_t>(rule) < policy.rules.size()) {
      const Rule& r = policy.rules[static_cast<size_t>(rule)];
      d["rule"] = r.name.empty() ? "line " + std::to_string(r.position.line) : r.name;
    } else {
      d["rule"] = nullptr;
    }
    d["count"] = count;
    out["decisions"].push_back(std::move(d));
  }
  return out;
}

std::string statsPathFor(const std::string& base, long pid) { return base + "." + std::to_string(pid) + ".json"; }

Status publishCommunicatorStats(const std::string& path, nlohmann::ordered_json communicator) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<nlohmann::ordered_json>> published;
  std::lock_guard<std::mutex> lock(mutex);
  auto& list = published[path];
  list.push_back(std::move(communicator));
  nlohmann::ordered_json file;
  file["pid"] = static_cast<long>(::getpid());
  char host[256] = {0};
  file["host"] = ::gethostname(host, sizeof(host) - 1) == 0 ? std::string(host) : std::string();
  file["communicators"] = list;
  return writeFileAtomically(path, file.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

}  // namespace nccl_roce::tuner
