#include "policy/rule_text.h"

#include "common/log.h"
#include "common/strings.h"
#include "policy/value_range_text.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::policy {

std::string tomlString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += format("\\u%04x", byte);
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string tomlCommentText(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t') || byte == 0x7f) c = '?';
  }
  return out;
}

std::string policyCollectiveName(int collective) {
  return toLower(telemetry::collectiveName(collective));
}

std::string choiceNameSuffix(const telemetry::Choice& choice) {
  std::string out;
  if (choice.algorithm >= 0) out += "-" + toLower(telemetry::algorithmName(choice.algorithm));
  if (choice.protocol >= 0) out += "-" + toLower(telemetry::protocolName(choice.protocol));
  if (choice.channels > 0) out += "-ch" + std::to_string(choice.channels);
  if (choice.chunkSize != 0) out += "-chunk" + toLower(telemetry::formatChunkSize(choice.chunk()));
  return out;
}

std::string formatRule(const RuleText& r) {
  std::string out = "[[rule]]\n";
  if (!r.name.empty()) out += "name = " + tomlString(r.name) + "\n";
  if (!r.collective.empty()) out += "collective = " + tomlString(r.collective) + "\n";
  out += "size = " + tomlString(formatValueRange(r.bytes, RangeUnit::kBytes)) + "\n";
  if (r.nodes > 0) out += "nodes = " + std::to_string(r.nodes) + "\n";
  if (r.ranks > 0) out += "ranks = " + std::to_string(r.ranks) + "\n";
  if (r.algorithm >= 0) out += "algorithm = " + tomlString(toLower(telemetry::algorithmName(r.algorithm))) + "\n";
  if (r.protocol >= 0) out += "protocol = " + tomlString(toLower(telemetry::protocolName(r.protocol))) + "\n";
  if (r.channels > 0) out += "channels = " + std::to_string(r.channels) + "\n";
  if (!r.chunkSizes.any()) return out;
  const telemetry::ChunkSize only = r.protocol >= 0 ? r.chunkSizes.forProtocol(r.protocol) : r.chunkSizes.byProtocol[0];
  if (r.protocol >= 0 || r.chunkSizes == ChunkSizes::all(only)) {
    return only.isNccl() ? out : out + "chunk_size = " + tomlString(telemetry::formatChunkSize(only)) + "\n";
  }
  std::string table;
  for (int p = 0; p < telemetry::kNumProtocols; ++p) {
    const telemetry::ChunkSize& chunk = r.chunkSizes.byProtocol[p];
    if (chunk.isNccl()) continue;
    table += (table.empty() ? "" : ", ") + toLower(telemetry::protocolName(p)) + " = " +
             tomlString(telemetry::formatChunkSize(chunk));
  }
  out += "chunk_size = { " + table + " }\n";
  return out;
}

}  // namespace nccl_roce::policy
