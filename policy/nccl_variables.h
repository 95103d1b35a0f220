// The variables NCCL reads and how it reads each value: what a policy's [env] may set (docs/policy-format.md,
// "Evaluation: first match"). A misspelled name is read by nobody and a value NCCL parses differently from how it
// reads ("4M" is 4 to strtoll) silently changes the run, so lint checks both against this table.
#pragma once

#include <string>
#include <string_view>

namespace nccl_roce::policy {

enum class NcclValueKind {
  kInteger,  // NCCL_PARAM: strtoll(value, nullptr, 0); sizes are bytes, flags 0 or 1
  kBoolean,  // NCCL 2.30's typed bool parameters: 1, T, TRUE, 0, F, FALSE (any case)
  kText,     // read as text: names, lists, paths, levels
};

struct NcclVariable {
  std::string_view name;
  NcclValueKind kind;
  bool readBeforePlugins;  // read with getenv before any plugin loads: no plugin can serve it
};

// nullopt-like: nullptr for a name no NCCL release of the table reads.
const NcclVariable* findNcclVariable(std::string_view name);

// The known name nearest to `name` by edits (insertions, deletions, substitutions, swaps of neighbours), when
// it is near enough to be a misspelling of it; empty otherwise.
std::string closestNcclVariable(std::string_view name);

// Why NCCL would not read `value` of `variable` as it is written, and what to write instead; empty when it reads
// it as written.
std::string ncclValueProblem(const NcclVariable& variable, std::string_view value);

// The releases the table was read from, for messages: "2.19.1 to 2.30.7".
extern const char* const kNcclVariablesReleases;

}  // namespace nccl_roce::policy
