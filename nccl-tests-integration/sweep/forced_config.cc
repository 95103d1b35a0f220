#include "nccl-tests-integration/sweep/forced_config.h"

#include "common/strings.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::sweep {

namespace {

const std::string* find(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

bool isList(const std::string& value) { return value.find_first_of(",;:^") != std::string::npos; }

}  // namespace

std::string ForcedConfig::describe() const {
  if (isDefault()) return "NCCL default";
  std::string out = algorithm >= 0 ? tuner::algorithmName(algorithm) : "any";
  out += "/";
  out += protocol >= 0 ? tuner::protocolName(protocol) : "any";
  if (channels > 0) out += "/" + std::to_string(channels) + " channels";
  return out;
}

std::optional<ForcedConfig> forcedConfigOf(const PerfRun& run, std::string* why) {
  const auto& env = run.environment;
  const std::string* plugin = find(env, "NCCL_TUNER_PLUGIN");
  const std::string* policy = find(env, "NCCL_ROCE_POLICY");
  if (plugin && !plugin->empty() && policy && *policy != "nccl") {
    *why = "ran under tuner policy '" + *policy + "' (compare policies with sweep compare)";
    return std::nullopt;
  }
  ForcedConfig config;
  if (const std::string* algo = find(env, "NCCL_ALGO")) {
    std::optional<int> a = isList(*algo) ? std::nullopt : tuner::parseAlgorithm(trim(*algo));
    if (!a) {
      *why = "NCCL_ALGO=" + *algo + " is not a single algorithm";
      return std::nullopt;
    }
    config.algorithm = *a;
  }
  if (const std::string* proto = find(env, "NCCL_PROTO")) {
    std::optional<int> p = isList(*proto) ? std::nullopt : tuner::parseProtocol(trim(*proto));
    if (!p) {
      *why = "NCCL_PROTO=" + *proto + " is not a single protocol";
      return std::nullopt;
    }
    config.protocol = *p;
  }
  const std::string* minCh = find(env, "NCCL_MIN_NCHANNELS");
  const std::string* maxCh = find(env, "NCCL_MAX_NCHANNELS");
  if (minCh || maxCh) {
    std::optional<uint64_t> lo = minCh ? parseUnsigned(trim(*minCh)) : std::nullopt;
    std::optional<uint64_t> hi = maxCh ? parseUnsigned(trim(*maxCh)) : std::nullopt;
    if (!lo || !hi || *lo != *hi || *lo == 0 || *lo > 64) {
      *why = "channels are forced only when NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS are the same count (1-64)";
      return std::nullopt;
    }
    config.channels = static_cast<int>(*lo);
  }
  return config;
}

}  // namespace nccl_roce::sweep
