#include "policy/chunk_size_toml.h"

#include "common/strings.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::policy {

std::optional<telemetry::ChunkSize> readChunkSize(TomlReader& r, const toml::node& node, const std::string& what) {
  StatusOr<telemetry::ChunkSize> parsed = Status(StatusCode::kInvalidArgument, "");
  if (node.is_integer()) {
    int64_t value = *node.value<int64_t>();
    parsed = value < 0 ? StatusOr<telemetry::ChunkSize>(Status(StatusCode::kInvalidArgument, "must not be negative"))
                       : telemetry::parseChunkSize(std::to_string(value));
  } else if (node.is_string()) {
    parsed = telemetry::parseChunkSize(*node.value<std::string>());
  } else {
    r.error(node, what + " must be bytes (\"256K\"), a factor of NCCL's own (\"x2\") or \"nccl\"");
    return std::nullopt;
  }
  if (!parsed.isOk()) {
    r.error(node, what + ": " + parsed.status().message());
    return std::nullopt;
  }
  return *parsed;
}

ChunkSizes readChunkSizes(TomlReader& r, const toml::node& node) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    std::optional<telemetry::ChunkSize> chunk = readChunkSize(r, node, "chunk_size");
    return chunk ? ChunkSizes::all(*chunk) : ChunkSizes{};
  }
  ChunkSizes out;
  if (table->empty()) r.error(node, "chunk_size must not be an empty table (omit it: NCCL's own)");
  for (auto&& [key, value] : *table) {
    const std::string name(key.str());
    std::optional<int> protocol = telemetry::parseProtocol(name);
    if (!protocol) {
      r.error(key.source(),
              "unknown protocol '" + name + "' in chunk_size (expected one of: " + telemetry::protocolChoices() + ")");
      continue;
    }
    if (std::optional<telemetry::ChunkSize> chunk = readChunkSize(r, value, "chunk_size." + name))
      out.byProtocol[*protocol] = *chunk;
  }
  return out;
}

void checkChunkSizes(TomlReader& r, const toml::node& node, const Rule& rule, const NcclBuffers& buffers) {
  const bool perProtocol = node.is_table();
  int protocolsRun = 0;
  for (int p = 0; p < telemetry::kNumProtocols; ++p) protocolsRun += callKindsOf(rule, p).empty() ? 0 : 1;
  // One value for a rule that may run several protocols: the fix may be to say which one it is for.
  const std::string hint = !perProtocol && protocolsRun > 1
                               ? "; name the protocols it is for (chunk_size = { simple = \"256K\" }) or restrict "
                                 "protocol"
                               : "";
  for (int p = 0; p < telemetry::kNumProtocols; ++p) {
    const telemetry::ChunkSize& chunk = rule.chunkSizes.byProtocol[p];
    if (chunk.isNccl()) continue;
    const std::vector<CallKind> kinds = callKindsOf(rule, p);
    const std::string protocol = telemetry::protocolName(p);
    const std::string what = perProtocol ? "chunk_size." + toLower(protocol) + " " + telemetry::formatChunkSize(chunk)
                                         : "chunk_size " + telemetry::formatChunkSize(chunk) + " (" + protocol + ")";
    if (kinds.empty()) {
      // A single value covers every protocol; only a protocol named in the table is a mistake.
      if (perProtocol) r.error(node, what + ": this rule never has NCCL run " + protocol);
      continue;
    }
    if (chunk.kind != telemetry::ChunkSize::Kind::kBytes) continue;
    if (std::string problem = chunkProblem(chunk.bytes, p, kinds, buffers); !problem.empty()) {
      r.error(node, what + ": " + problem + hint);
    }
  }
}

}  // namespace nccl_roce::policy
