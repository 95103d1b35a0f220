// Reading `chunk_size` (docs/policy-format.md, "Chunk size") for rules and [experiment.explore], and the checks
// that keep a policy from asking NCCL for a chunk size it cannot use (policy/nccl_chunk_limits.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "policy/chunk_size_checks.h"
#include "policy/toml_reader.h"
#include "telemetry/chunk_size.h"

namespace nccl_roce::policy {

// A rule's chunk_size: one value for every protocol ("256K", 262144, "x2", "nccl"), or a table by protocol
// ({ ll128 = "240K", simple = "1M" }). Errors are recorded at the value.
ChunkSizes readChunkSizes(TomlReader& r, const toml::node& node);

// One chunk size, as each entry of an explore list is written.
std::optional<telemetry::ChunkSize> readChunkSize(TomlReader& r, const toml::node& node, const std::string& what);

// Errors at `node` (the rule's chunk_size) for a byte count NCCL cannot use for any call the rule decides with a
// protocol: below the grain, not a multiple of it, above every ceiling (with `buffers`, the policy's [env] over
// NCCL's defaults); and for a protocol the table names that the rule never runs. A factor of NCCL's own is
// checked at run time only (NCCL's own varies with the size).
void checkChunkSizes(TomlReader& r, const toml::node& node, const Rule& rule, const NcclBuffers& buffers);

}  // namespace nccl_roce::policy
