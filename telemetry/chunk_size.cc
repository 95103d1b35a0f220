#include "telemetry/chunk_size.h"

#include "common/strings.h"

namespace nccl_roce::telemetry {

namespace {

// The factors a policy can write, from x0.125 (2^-3) to x8 (2^3); x1 is NCCL's own and written "nccl".
const char* const kFactorText[2 * kMaxChunkScaleLog2 + 1] = {"x0.125", "x0.25", "x0.5", nullptr, "x2", "x4", "x8"};

}  // namespace

uint32_t ChunkSize::code() const {
  switch (kind) {
    case Kind::kBytes:
      return static_cast<uint32_t>(bytes);
    case Kind::kScaled:
      return 1 + 2 * static_cast<uint32_t>(scaleLog2 + kMaxChunkScaleLog2);
    case Kind::kNccl:
      break;
  }
  return 0;
}

ChunkSize ChunkSize::fromCode(uint32_t code) {
  if (code == 0) return nccl();
  if ((code & 1) == 0) return (code & 15) == 0 ? ofBytes(code) : nccl();
  int log2 = static_cast<int>((code - 1) / 2) - kMaxChunkScaleLog2;
  return log2 != 0 && log2 >= -kMaxChunkScaleLog2 && log2 <= kMaxChunkScaleLog2 ? scaled(log2) : nccl();
}

StatusOr<ChunkSize> parseChunkSize(std::string_view text) {
  std::string_view t = trim(text);
  if (toLower(t) == "nccl") return ChunkSize::nccl();
  if (!t.empty() && (t.front() == 'x' || t.front() == 'X')) {
    std::string factor = toLower(t);
    for (int i = 0; i < 2 * kMaxChunkScaleLog2 + 1; ++i) {
      if (kFactorText[i] != nullptr && factor == kFactorText[i]) return ChunkSize::scaled(i - kMaxChunkScaleLog2);
    }
    return Status(StatusCode::kInvalidArgument,
                  "'" + std::string(t) +
                      "' is not a factor of NCCL's chunk size (x0.125, x0.25, x0.5, x2, x4 or x8; "
                      "\"nccl\" for NCCL's own)");
  }
  StatusOr<uint64_t> bytes = parseByteSize(t);
  if (!bytes.isOk()) {
    return Status(StatusCode::kInvalidArgument, bytes.status().message() +
                                                    " (a chunk size is bytes such as \"256K\", a factor of NCCL's "
                                                    "such as \"x2\", or \"nccl\")");
  }
  if (*bytes == 0)
    return Status(StatusCode::kInvalidArgument, "a chunk size of 0 is no chunk size; write \"nccl\" to keep NCCL's");
  if (*bytes >= (uint64_t{1} << 31)) {
    return Status(StatusCode::kInvalidArgument,
                  "chunk size " + formatByteSize(*bytes) + " is 2G or more: NCCL holds chunk sizes in an int");
  }
  return ChunkSize::ofBytes(*bytes);
}

std::string formatChunkSize(const ChunkSize& chunk) {
  switch (chunk.kind) {
    case ChunkSize::Kind::kBytes:
      return formatByteSize(chunk.bytes);
    case ChunkSize::Kind::kScaled:
      return kFactorText[chunk.scaleLog2 + kMaxChunkScaleLog2];
    case ChunkSize::Kind::kNccl:
      break;
  }
  return "nccl";
}

std::string describeChunkSize(const ChunkSize& chunk) {
  if (chunk.kind == ChunkSize::Kind::kBytes) return formatByteSize(chunk.bytes);
  if (chunk.kind == ChunkSize::Kind::kScaled) return "NCCL's " + formatChunkSize(chunk);
  return "NCCL's";
}

std::string chunkSizeLabel(uint32_t code) {
  ChunkSize chunk = ChunkSize::fromCode(code);
  return chunk.kind == ChunkSize::Kind::kScaled ? formatChunkSize(chunk) : std::to_string(code);
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

}  // namespace nccl_roce::telemetry
