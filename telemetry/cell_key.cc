#include "telemetry/cell_key.h"

#include <string>
#include <tuple>

#include "common/strings.h"
#include "telemetry/chunk_size.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::telemetry {

namespace {

auto fields(const CellKey& k) {
  return std::tie(k.collective, k.bucket, k.algorithm, k.protocol, k.channels, k.chunkSize, k.source);
}

int8_t indexOrUnknown(int index, int count) {
  return static_cast<int8_t>(index >= 0 && index < count ? index : -1);
}

Status invalid(const std::string& what) {
  return Status(StatusCode::kParseError, what);
}

// An algorithm or protocol: a name `parse` knows, null for unknown, or "any", which versions before the shared
// key wrote for an unknown timing.
template <typename Parse>
bool choiceOrUnknown(const nlohmann::json& line, const char* name, Parse parse, int8_t* out) {
  auto it = line.find(name);
  *out = -1;
  if (it == line.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  if (*it == "any") return true;
  std::optional<int> index = parse(it->get<std::string>());
  if (index) *out = static_cast<int8_t>(*index);
  return index.has_value();
}

bool unsignedAtMost(const nlohmann::json& line, const char* name, uint64_t max, uint64_t* out) {
  auto it = line.find(name);
  if (it == line.end() || !it->is_number_unsigned() || it->get<uint64_t>() > max) return false;
  *out = it->get<uint64_t>();
  return true;
}

}  // namespace

const char* timingSourceName(TimingSource source) {
  switch (source) {
    case TimingSource::kKernelGpu:
      return "kernel_gpu";
    case TimingSource::kKernelGpuBatch:
      return "kernel_gpu_batch";
    case TimingSource::kKernelHost:
      return "kernel_host";
    case TimingSource::kNone:
      break;
  }
  return "none";
}

bool CellKey::operator<(const CellKey& o) const {
  return fields(*this) < fields(o);
}

CellKey cellKey(int collective, uint64_t bytes, int algorithm, int protocol, int channels, uint32_t chunkSize) {
  CellKey key;
  key.collective = indexOrUnknown(collective, kNumCollectives);
  key.bucket = static_cast<uint8_t>(sizeBucket(bytes));
  key.algorithm = indexOrUnknown(algorithm, kMaxAlgorithms);
  key.protocol = indexOrUnknown(protocol, kNumProtocols);
  key.channels = static_cast<uint8_t>(channels < 0 ? 0 : channels > 255 ? 255 : channels);
  key.chunkSize = chunkSize;
  return key;
}

void writeCellKey(const CellKey& key, nlohmann::ordered_json& out) {
  out["collective"] = collectiveName(key.collective);
  uint64_t lo = key.bucket == 0 ? 0 : (uint64_t{1} << key.bucket);
  uint64_t hi = key.bucket >= 63 ? UINT64_MAX : (uint64_t{1} << (key.bucket + 1)) - 1;
  out["bucket"] = formatByteSize(lo) + "-" + (key.bucket >= 63 ? std::string("16E") : formatByteSize(hi + 1));
  out["size_min"] = lo;
  out["size_max"] = hi;
  auto nameOrNull = [](int index, const char* name) {
    return index >= 0 ? nlohmann::ordered_json(name) : nlohmann::ordered_json(nullptr);
  };
  out["algorithm"] = nameOrNull(key.algorithm, algorithmName(key.algorithm));
  out["protocol"] = nameOrNull(key.protocol, protocolName(key.protocol));
  out["channels"] = key.channels;
  if (key.chunkSize != 0) {
    ChunkSize chunk = ChunkSize::fromCode(key.chunkSize);
    if (chunk.kind == ChunkSize::Kind::kScaled) {
      out["chunk_size"] = formatChunkSize(chunk);
    } else {
      out["chunk_size"] = key.chunkSize;
    }
  }
}

std::string chunkSizeLabel(uint32_t chunkSize) {
  ChunkSize chunk = ChunkSize::fromCode(chunkSize);
  return chunk.kind == ChunkSize::Kind::kScaled ? formatChunkSize(chunk) : std::to_string(chunkSize);
}

std::optional<uint32_t> chunkSizeFromLabel(std::string_view label) {
  if (label == "0") return 0;
  StatusOr<ChunkSize> chunk = parseChunkSize(label);
  // Only what chunkSizeLabel writes: a chunk size a key can hold (bytes in 16-byte grains), in its one spelling.
  if (!chunk.isOk() || chunk->isNccl() || ChunkSize::fromCode(chunk->code()) != *chunk ||
      chunkSizeLabel(chunk->code()) != label) {
    return std::nullopt;
  }
  return chunk->code();
}

Status readCellKey(const nlohmann::json& line, CellKey* key) {
  *key = CellKey();
  auto collective = line.find("collective");
  if (collective == line.end() || !collective->is_string()) return invalid("no collective");
  std::optional<int> index = parseCollective(collective->get<std::string>());
  if (!index) return invalid("unknown collective '" + collective->get<std::string>() + "'");
  key->collective = static_cast<int8_t>(*index);
  uint64_t sizeMin = 0, channels = 0, chunkSize = 0;
  if (!unsignedAtMost(line, "size_min", UINT64_MAX, &sizeMin)) return invalid("no size_min");
  key->bucket = static_cast<uint8_t>(sizeBucket(sizeMin));
  if (!choiceOrUnknown(line, "algorithm", parseAlgorithm, &key->algorithm)) {
    return invalid("algorithm is neither null nor one of " + algorithmChoices());
  }
  if (!choiceOrUnknown(line, "protocol", parseProtocol, &key->protocol)) {
    return invalid("protocol is neither null nor one of " + protocolChoices());
  }
  if (!unsignedAtMost(line, "channels", 64, &channels)) return invalid("channels is not a whole number 0..64");
  key->channels = static_cast<uint8_t>(channels);
  if (auto chunk = line.find("chunk_size"); chunk != line.end() && chunk->is_string()) {
    StatusOr<ChunkSize> factor = parseChunkSize(chunk->get<std::string>());
    if (!factor.isOk() || factor->kind != ChunkSize::Kind::kScaled) {
      return invalid("chunk_size is neither bytes nor a factor of NCCL's own such as \"x2\"");
    }
    chunkSize = factor->code();
  } else if (chunk != line.end() &&
             (!unsignedAtMost(line, "chunk_size", UINT32_MAX, &chunkSize) || chunkSize % 16 != 0)) {
    return invalid("chunk_size is not a whole number of bytes in 16-byte grains (0 = NCCL's own)");
  }
  key->chunkSize = static_cast<uint32_t>(chunkSize);
  if (auto source = line.find("timing_source"); source != line.end()) {
    for (TimingSource s : {TimingSource::kKernelGpu, TimingSource::kKernelGpuBatch, TimingSource::kKernelHost}) {
      if (*source == timingSourceName(s)) key->source = s;
    }
    if (key->source == TimingSource::kNone) {
      return invalid("timing_source is not \"kernel_gpu\", \"kernel_gpu_batch\" or \"kernel_host\"");
    }
  }
  return Status::ok();
}

}  // namespace nccl_roce::telemetry
