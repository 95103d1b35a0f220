// A chunk size as a policy states it and a decision or timing key carries it (docs/policy-format.md, "Chunk
// size"): NCCL's own, a number of bytes, or NCCL's own times a power of two ("x2", "x0.5"), which keeps following
// NCCL's size-dependent choice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "common/status.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::telemetry {

// Factors run from x0.125 to x8: NCCL's own choice halves on fixed thresholds, and beyond x8 either way it
// leaves the protocol's buffer or drops below any useful pipelining.
inline constexpr int kMaxChunkScaleLog2 = 3;

// Eight bytes, so that rules and decisions carry it at no cost.
struct ChunkSize {
  enum class Kind : uint8_t { kNccl = 0, kBytes, kScaled };
  Kind kind = Kind::kNccl;
  int8_t scaleLog2 = 0;  // kScaled: NCCL's chunk size times 2^scaleLog2, never 0
  uint32_t bytes = 0;    // kBytes: below 2 GiB (parseChunkSize)

  static ChunkSize nccl() { return {}; }
  static ChunkSize ofBytes(uint64_t bytes) { return {Kind::kBytes, 0, static_cast<uint32_t>(bytes)}; }
  static ChunkSize scaled(int log2) { return {Kind::kScaled, static_cast<int8_t>(log2), 0}; }

  bool isNccl() const { return kind == Kind::kNccl; }
  bool operator==(const ChunkSize& o) const { return kind == o.kind && bytes == o.bytes && scaleLog2 == o.scaleLog2; }
  bool operator!=(const ChunkSize& o) const { return !(*this == o); }
  bool operator<(const ChunkSize& o) const {
    return std::tie(kind, bytes, scaleLog2) < std::tie(o.kind, o.bytes, o.scaleLog2);
  }

  // One number for decision and timing keys: 0 is NCCL's own; a byte count (every protocol's grain is a
  // multiple of 16, so its low four bits are clear); an odd number is a factor. fromCode(code()) is the
  // identity for every chunk size a policy can hold; fromCode of anything else is NCCL's own.
  uint32_t code() const;
  static ChunkSize fromCode(uint32_t code);
};

// "256K", "262144", "x2", "x0.5", "nccl". Bytes are whole, below 2 GiB (NCCL holds chunk sizes in an int).
StatusOr<ChunkSize> parseChunkSize(std::string_view text);
// What parseChunkSize reads back: "256K", "576000", "x2", "x0.5", "nccl".
std::string formatChunkSize(const ChunkSize& chunk);
// For sentences: "256K", "NCCL's x2", "NCCL's".
std::string describeChunkSize(const ChunkSize& chunk);

// A key's chunk size (its code) as files and labels write it: "0" for NCCL's own, bytes as a number ("262144"),
// a factor as a policy writes it ("x2"). chunkSizeFromLabel reads back exactly that (nullopt for anything else).
std::string chunkSizeLabel(uint32_t code);
std::optional<uint32_t> chunkSizeFromLabel(std::string_view label);

}  // namespace nccl_roce::telemetry
