#include "telemetry/json_fields.h"

namespace nccl_roce::telemetry {

using nlohmann::json;

bool stringField(const json& object, const char* name, std::string* out, bool optional) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return optional;
  if (!it->is_string()) return false;
  *out = it->get<std::string>();
  return true;
}

bool intField(const json& object, const char* name, int64_t lo, int64_t hi, int64_t* out) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return true;
  int64_t value = 0;
  if (it->is_number_unsigned()) {
    uint64_t u = it->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return false;
    value = static_cast<int64_t>(u);
  } else if (it->is_number_integer()) {
    value = it->get<int64_t>();
  } else {
    return false;
  }
  if (value < lo || value > hi) return false;
  *out = value;
  return true;
}

bool intField(const json& object, const char* name, int lo, int hi, int* out) {
  int64_t value = *out;
  if (!intField(object, name, int64_t{lo}, int64_t{hi}, &value)) return false;
  *out = static_cast<int>(value);
  return true;
}

}  // namespace nccl_roce::telemetry
