#include "nccl-tests-integration/sweep/forced_config.h"

#include <tuple>
#include <vector>

#include "common/strings.h"
#include "policy/chunk_size_checks.h"
#include "policy/nccl_chunk_limits.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::sweep {

namespace {

const std::string* find(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

bool isList(const std::string& value) {
  return value.find_first_of(",;:^") != std::string::npos;
}

// "2.30.2" and later call getChunkSize; an unknown version is taken at its word.
bool asksChunkSize(const std::string& version) {
  std::vector<std::string_view> parts = split(version, '.');
  std::optional<uint64_t> major = parts.size() > 0 ? parseUnsigned(parts[0]) : std::nullopt;
  std::optional<uint64_t> minor = parts.size() > 1 ? parseUnsigned(parts[1]) : std::nullopt;
  std::optional<uint64_t> patch =
      parts.size() > 2 ? parseUnsigned(parts[2].substr(0, parts[2].find_first_not_of("0123456789"))) : std::nullopt;
  if (!major || !minor) return true;
  return std::make_tuple(*major, *minor, patch.value_or(0)) >= std::make_tuple(2u, 30u, 2u);
}

// The rule a configuration amounts to, for the calls of one collective.
policy::Rule ruleOf(const telemetry::Choice& c, int collective) {
  policy::Rule rule;
  rule.collectives = collective >= 0 ? 1u << collective : policy::kAllCollectives;
  if (c.algorithm >= 0 || c.protocol >= 0) rule.choices = {{c.algorithm, c.protocol}};
  return rule;
}

// Whether NCCL can use `bytes` as the chunk size with `protocol` for some call of the configuration.
bool usableWith(const telemetry::Choice& c, uint32_t bytes, int collective, int protocol,
                const policy::NcclBuffers& buffers) {
  std::vector<policy::CallKind> kinds = policy::callKindsOf(ruleOf(c, collective), protocol);
  return !kinds.empty() && policy::chunkProblem(bytes, protocol, kinds, buffers).empty();
}

// "Ring/any/16 channels/chunk 256K" (ForcedConfig::describe), with `chunk` for the choice's chunk size: a size read
// from the run is described before it is known to fit the choice.
std::string describeForced(const telemetry::Choice& c, const telemetry::ChunkSize& chunk) {
  if (c.algorithm < 0 && c.protocol < 0 && c.channels == 0 && chunk.isNccl()) return "NCCL default";
  std::string out = c.algorithm >= 0 ? telemetry::algorithmName(c.algorithm) : "any";
  out += "/";
  out += c.protocol >= 0 ? telemetry::protocolName(c.protocol) : "any";
  if (c.channels > 0) out += "/" + std::to_string(c.channels) + " channels";
  if (!chunk.isNccl()) out += "/chunk " + telemetry::formatChunkSize(chunk);
  return out;
}

// Each read* below copies one forced setting of the run into *config: false, saying why, when the run cannot stand
// for one forced configuration.

bool readAlgorithm(const std::map<std::string, std::string>& env, ForcedConfig* config, std::string* why) {
  if (const std::string* algo = find(env, "NCCL_ALGO")) {
    std::optional<int> a = isList(*algo) ? std::nullopt : telemetry::parseAlgorithm(trim(*algo));
    if (!a) {
      *why = "NCCL_ALGO=" + *algo + " is not a single algorithm";
      return false;
    }
    config->choice.algorithm = static_cast<int8_t>(*a);
  }
  return true;
}

bool readProtocol(const std::map<std::string, std::string>& env, ForcedConfig* config, std::string* why) {
  if (const std::string* proto = find(env, "NCCL_PROTO")) {
    std::optional<int> p = isList(*proto) ? std::nullopt : telemetry::parseProtocol(trim(*proto));
    if (!p) {
      *why = "NCCL_PROTO=" + *proto + " is not a single protocol";
      return false;
    }
    config->choice.protocol = static_cast<int8_t>(*p);
  }
  return true;
}

bool readChannels(const std::map<std::string, std::string>& env, ForcedConfig* config, std::string* why) {
  const std::string* minCh = find(env, "NCCL_MIN_NCHANNELS");
  const std::string* maxCh = find(env, "NCCL_MAX_NCHANNELS");
  if (minCh || maxCh) {
    std::optional<uint64_t> lo = minCh ? parseUnsigned(trim(*minCh)) : std::nullopt;
    std::optional<uint64_t> hi = maxCh ? parseUnsigned(trim(*maxCh)) : std::nullopt;
    if (!lo || !hi || *lo != *hi || *lo == 0 || *lo > 64) {
      *why = "channels are forced only when NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS are the same count (1-64)";
      return false;
    }
    config->choice.channels = static_cast<uint8_t>(*lo);
  }
  return true;
}

// Whether NCCL can use `bytes` as the chunk size for some call of the run, with the run's buffer settings.
bool chunkUsableInRun(const ForcedConfig& config, uint32_t bytes, const PerfRun& run) {
  const int collective = telemetry::parseCollective(run.collective).value_or(-1);
  const policy::NcclBuffers buffers = policy::NcclBuffers::from([&](const char* name) -> std::optional<std::string> {
    const std::string* value = find(run.environment, name);
    return value ? std::optional<std::string>(*value) : std::nullopt;
  });
  bool usable = false;
  for (int p = 0; p < telemetry::kNumProtocols; ++p) usable |= usableWith(config.choice, bytes, collective, p, buffers);
  return usable;
}

// The chunk size is ours to force: it applies only through our tuner, on NCCL versions that ask for it.
bool readChunkSize(const PerfRun& run, bool tunerPlugin, ForcedConfig* config, std::string* why) {
  const std::string* chunk = find(run.environment, "NCCL_ROCE_CHUNK_SIZE");
  if (!chunk) return true;
  StatusOr<telemetry::ChunkSize> parsed = telemetry::parseChunkSize(*chunk);
  if (!parsed.isOk()) {
    *why = "NCCL_ROCE_CHUNK_SIZE=" + *chunk + ": " + parsed.status().message();
    return false;
  }
  if (!tunerPlugin) {
    *why = "NCCL_ROCE_CHUNK_SIZE=" + *chunk + " without NCCL_TUNER_PLUGIN=roce forces nothing";
    return false;
  }
  if (!asksChunkSize(run.ncclVersion)) {
    *why = "NCCL " + run.ncclVersion + " has no getChunkSize (2.30.2 and later): NCCL_ROCE_CHUNK_SIZE=" + *chunk +
           " did not apply";
    return false;
  }
  if (parsed->kind == telemetry::ChunkSize::Kind::kBytes && !chunkUsableInRun(*config, parsed->bytes, run)) {
    *why = "NCCL_ROCE_CHUNK_SIZE=" + *chunk + " is a chunk size NCCL can use for none of this run's calls (" +
           describeForced(config->choice, *parsed) + "), so NCCL kept its own";
    return false;
  }
  // Bytes NCCL can use are whole grains, multiples of 16, which the choice's code keeps (telemetry/chunk_size.h).
  config->choice.chunkSize = parsed->code();
  return true;
}

}  // namespace

std::string ForcedConfig::describe() const {
  return describeForced(choice, choice.chunk());
}

policy::ChunkSizes ForcedConfig::chunkSizes(int collective) const {
  const telemetry::ChunkSize chunk = choice.chunk();
  if (chunk.kind != telemetry::ChunkSize::Kind::kBytes) return policy::ChunkSizes::all(chunk);
  policy::ChunkSizes out;
  for (int p = 0; p < telemetry::kNumProtocols; ++p) {
    if (usableWith(choice, chunk.bytes, collective, p, policy::NcclBuffers{})) out.byProtocol[p] = chunk;
  }
  return out;
}

std::optional<ForcedConfig> forcedConfigOf(const PerfRun& run, std::string* why) {
  const std::string* plugin = find(run.environment, "NCCL_TUNER_PLUGIN");
  const std::string* policy = find(run.environment, "NCCL_ROCE_POLICY");
  const bool tunerPlugin = plugin && !plugin->empty();
  if (tunerPlugin && policy && *policy != "nccl") {
    *why = "ran under tuner policy '" + *policy + "' (compare policies with sweep compare)";
    return std::nullopt;
  }
  ForcedConfig config;
  if (!readAlgorithm(run.environment, &config, why) || !readProtocol(run.environment, &config, why) ||
      !readChannels(run.environment, &config, why) || !readChunkSize(run, tunerPlugin, &config, why)) {
    return std::nullopt;
  }
  return config;
}

}  // namespace nccl_roce::sweep
