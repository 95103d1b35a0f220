// Reading policy-format TOML with toml++, for the policy and experiment readers: every problem is recorded with
// its file:line:column and reading goes on, so `nccl-roce policy lint` can list them all.
#pragma once

#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "policy/policy.h"
#include "policy/policy_error.h"
#include "policy/value_range_text.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::policy {

inline constexpr int kMaxChannels = 64;  // NCCL's MAXCHANNELS

class TomlReader {
 public:
  TomlReader(std::string source, std::vector<PolicyError>& errors) : source_(std::move(source)), errors_(errors) {}

  void error(const toml::source_region& where, const std::string& message) {
    errors_.push_back({source_, static_cast<int>(where.begin.line), static_cast<int>(where.begin.column), message});
  }
  void error(const toml::node& node, const std::string& message) { error(node.source(), message); }
  void error(const SourcePosition& where, const std::string& message) {
    errors_.push_back({source_, where.line, where.column, message});
  }

  // How many problems are recorded so far: a reader compares counts to tell whether a part read cleanly.
  size_t errorCount() const { return errors_.size(); }

  // Rejects keys the format does not know (typos such as "protocl" must not silently mean "any").
  void onlyKeys(const toml::table& table, std::initializer_list<const char*> allowed, const std::string& where) {
    for (auto&& [key, node] : table) {
      bool known = false;
      for (const char* name : allowed) known |= key.str() == name;
      if (!known) {
        std::string list;
        for (const char* name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
        error(key.source(),
              "unknown key '" + std::string(key.str()) + "' in " + where + " (expected one of: " + list + ")");
      }
    }
  }

  std::optional<std::string> string(const toml::node& node, const char* what) {
    if (auto value = node.value<std::string>(); value && node.is_string()) return *value;
    error(node, std::string(what) + " must be a string");
    return std::nullopt;
  }

  // A string or an array of strings.
  std::vector<std::pair<std::string, const toml::node*>> names(const toml::node& node, const char* what) {
    std::vector<std::pair<std::string, const toml::node*>> out;
    if (node.is_string()) {
      out.push_back({*node.value<std::string>(), &node});
    } else if (const toml::array* array = node.as_array()) {
      if (array->empty()) error(node, std::string(what) + " must not be an empty list");
      for (const toml::node& element : *array) {
        if (element.is_string()) {
          out.push_back({*element.value<std::string>(), &element});
        } else {
          error(element, std::string(what) + " entries must be strings");
        }
      }
    } else {
      error(node, std::string(what) + " must be a string or a list of strings");
    }
    return out;
  }

  std::optional<ValueRange> range(const toml::node& node, const char* what, RangeUnit unit) {
    if (node.is_integer()) {
      int64_t value = *node.value<int64_t>();
      if (value < 0) {
        error(node, std::string(what) + " must not be negative");
        return std::nullopt;
      }
      return ValueRange{static_cast<uint64_t>(value), static_cast<uint64_t>(value)};
    }
    if (!node.is_string()) {
      error(node, std::string(what) + " must be a number or a range string such as \"16K..256K\"");
      return std::nullopt;
    }
    auto parsed = parseValueRange(*node.value<std::string>(), unit);
    if (!parsed.isOk()) {
      error(node, std::string(what) + ": " + parsed.status().message());
      return std::nullopt;
    }
    return *parsed;
  }

 private:
  std::string source_;
  std::vector<PolicyError>& errors_;
};

// A collective selector: a name, a list of names, or "*" (docs/policy-format.md); bit c set for ncclFunc_t c.
inline uint32_t readCollectives(TomlReader& r, const toml::node& node) {
  uint32_t collectives = 0;
  for (auto& [name, where] : r.names(node, "collective")) {
    if (name == "*") {
      collectives = kAllCollectives;
    } else if (auto c = telemetry::parseCollective(name)) {
      collectives |= 1u << *c;
    } else {
      r.error(*where, "unknown collective '" + name + "' (expected one of: " + telemetry::collectiveChoices() + ")");
    }
  }
  return collectives;
}

// A share of communicators in whole percent (the key "weight"); reported at the value, or at the table when
// the key is missing.
inline std::optional<uint32_t> readWeight(TomlReader& r, const toml::table& table, const std::string& message) {
  const toml::node* weight = table.get("weight");
  int64_t w = weight && weight->is_integer() ? *weight->value<int64_t>() : -1;
  if (w < 0 || w > 100) {
    r.error(weight ? weight->source() : table.source(), message);
    return std::nullopt;
  }
  return static_cast<uint32_t>(w);
}

inline SourcePosition positionOf(const toml::node& node) {
  return {static_cast<int>(node.source().begin.line), static_cast<int>(node.source().begin.column)};
}

}  // namespace nccl_roce::policy
