// Typed members of the JSON that readers meet (our statistics files, Inspector dumps), read strictly: a
// file from another pod may be truncated, hand-edited or of another version, and a member of the wrong type or
// out of range must become a precise error, never a conversion nlohmann leaves undefined (a float such as 6e86
// read as an int) or a silently wrapped number.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace nccl_roce::telemetry {

// A string member, or "" for null/absent when `optional`; false when present with another type.
bool stringField(const nlohmann::json& object, const char* name, std::string* out, bool optional = true);

// A whole-number member in [lo, hi]: absent or null leaves *out as it is (true); false when present as anything
// else (a fraction, a string, out of range).
bool intField(const nlohmann::json& object, const char* name, int64_t lo, int64_t hi, int64_t* out);
// The same into an int, within [lo, hi] (which must lie within int's range).
bool intField(const nlohmann::json& object, const char* name, int lo, int hi, int* out);

}  // namespace nccl_roce::telemetry
