#include "fleet/json_fields.h"

namespace nccl_roce::fleet {

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

bool hexId(const std::string& text, uint64_t* out) {
  if (text.size() < 3 || text.size() > 18 || text.compare(0, 2, "0x") != 0) return false;
  uint64_t value = 0;
  for (size_t i = 2; i < text.size(); ++i) {
    char c = text[i];
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return false;
    value = value << 4 | static_cast<uint64_t>(digit);
  }
  *out = value;
  return true;
}

}  // namespace nccl_roce::fleet
