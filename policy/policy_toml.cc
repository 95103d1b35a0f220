#include "policy/policy_toml.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "common/strings.h"
#include "policy/chunk_size_toml.h"
#include "policy/design_toml.h"
#include "policy/env_toml.h"
#include "policy/explore_toml.h"
#include "policy/policy_checks.h"
#include "policy/toml_reader.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::policy {

namespace {

void readChoices(TomlReader& r, const toml::table& rule, Rule& out) {
  std::vector<int> algorithms{-1};
  std::vector<int> protocols{-1};
  if (const toml::node* node = rule.get("algorithm")) {
    algorithms.clear();
    for (auto& [name, where] : r.names(*node, "algorithm")) {
      if (auto a = telemetry::parseAlgorithm(name)) {
        algorithms.push_back(*a);
      } else {
        r.error(*where, "unknown algorithm '" + name + "' (expected one of: " + telemetry::algorithmChoices() + ")");
      }
    }
  }
  if (const toml::node* node = rule.get("protocol")) {
    protocols.clear();
    for (auto& [name, where] : r.names(*node, "protocol")) {
      if (auto p = telemetry::parseProtocol(name)) {
        protocols.push_back(*p);
      } else {
        r.error(*where, "unknown protocol '" + name + "' (expected one of: " + telemetry::protocolChoices() + ")");
      }
    }
  }
  if (rule.get("algorithm") == nullptr && rule.get("protocol") == nullptr) return;  // keep NCCL's choice
  for (int a : algorithms) {
    for (int p : protocols) out.choices.push_back({a, p});
  }
}

// A rule as written; *selectorsRead is false when what it matches is not what was written (an unknown key may be a
// misspelled selector, a selector that does not parse matches everything), so whole-policy checks leave it out.
Rule readRule(TomlReader& r, const toml::table& rule, const NcclBuffers& buffers, bool* selectorsRead) {
  const size_t errorsBefore = r.errorCount();
  Rule out;
  out.position = positionOf(rule);
  r.onlyKeys(rule,
             {"name", "collective", "size", "nodes", "ranks", "pipe_ops", "reg_buff", "algorithm", "protocol",
              "channels", "chunk_size"},
             "a [[rule]]");
  if (const toml::node* node = rule.get("name")) {
    if (auto name = r.string(*node, "name")) out.name = *name;
  }
  if (const toml::node* node = rule.get("collective")) out.collectives = readCollectives(r, *node);
  struct RangeKey {
    const char* key;
    ValueRange* target;
    RangeUnit unit;
  };
  for (const RangeKey& k :
       {RangeKey{"size", &out.bytes, RangeUnit::kBytes}, RangeKey{"nodes", &out.nodes, RangeUnit::kCount},
        RangeKey{"ranks", &out.ranks, RangeUnit::kCount}, RangeKey{"pipe_ops", &out.pipeOps, RangeUnit::kCount}}) {
    if (const toml::node* node = rule.get(k.key)) {
      if (auto parsed = r.range(*node, k.key, k.unit)) *k.target = *parsed;
    }
  }
  if (const toml::node* node = rule.get("reg_buff")) {
    if (node->is_boolean()) {
      out.regBuff = *node->value<bool>();
    } else {
      r.error(*node, "reg_buff must be true or false");
    }
  }
  *selectorsRead = r.errorCount() == errorsBefore;
  if (const toml::node* node = rule.get("channels")) {
    int64_t channels = node->is_integer() ? *node->value<int64_t>() : -1;
    if (channels < 0 || channels > kMaxChannels) {
      r.error(*node, "channels must be a whole number from 0 (NCCL decides) to 64");
    } else {
      out.channels = static_cast<int>(channels);
    }
  }
  readChoices(r, rule, out);
  if (const toml::node* node = rule.get("chunk_size")) {
    out.chunkSizes = readChunkSizes(r, *node);
    checkChunkSizes(r, *node, out, buffers);
  }
  return out;
}

// Statistics count a policy's decisions by rule name, and an unnamed rule by "line N": two rules under one label
// would add up as one.
void checkRuleName(TomlReader& r, const toml::table& rule, const Rule& read, std::map<std::string, int>& names) {
  const toml::node* node = rule.get("name");
  if (node == nullptr || read.name.empty()) return;
  const std::string& name = read.name;
  if (startsWith(name, "line ") && parseUnsigned(std::string_view(name).substr(5))) {
    r.error(*node, "rule name '" + name + "' is how statistics label the unnamed rule at that line; choose another");
    return;
  }
  auto [first, inserted] = names.emplace(name, read.position.line);
  if (!inserted) {
    r.error(*node, "duplicate rule name '" + name + "' (the rule at line " + std::to_string(first->second) +
                       " has it): statistics count decisions by rule name; give each rule its own");
  }
}

// Reads [policy], [env] and the rules; selectorsRead[i] says whether rule i's selectors are as written.
void readPolicy(TomlReader& r, const toml::table& root, Policy& policy, std::vector<bool>& selectorsRead) {
  r.onlyKeys(root, {"policy", "env", "rule"}, "a policy file");
  const toml::table* header = root["policy"].as_table();
  if (header == nullptr) {
    r.error(root["policy"].node() ? root["policy"].node()->source() : root.source(), "[policy] must be a table");
    return;
  }
  r.onlyKeys(*header, {"name", "description"}, "[policy]");
  if (const toml::node* node = header->get("name")) {
    if (auto name = r.string(*node, "name")) policy.name = *name;
  }
  if (policy.name.empty()) r.error(header->source(), "[policy] needs a non-empty name");
  if (const toml::node* node = header->get("description")) {
    if (auto text = r.string(*node, "description")) policy.description = *text;
  }
  if (const toml::node* env = root.get("env")) readEnvTable(r, *env, policy);
  if (const toml::node* rules = root.get("rule")) {
    const toml::array* array = rules->as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
      r.error(*rules, "rules are written as [[rule]] tables");
      return;
    }
    if (array->size() > kMaxPolicyRules) {
      r.error(*rules, "more than " + std::to_string(kMaxPolicyRules) + " rules");
      return;
    }
    const NcclBuffers buffers = buffersOf(policy);  // [env] is read by now
    std::map<std::string, int> names;
    for (const toml::node& node : *array) {
      const toml::table& rule = *node.as_table();
      bool read = false;
      policy.rules.push_back(readRule(r, rule, buffers, &read));
      selectorsRead.push_back(read);
      checkRuleName(r, rule, policy.rules.back(), names);
    }
  }
}

ExperimentArm readArm(TomlReader& r, const toml::table& arm, std::set<std::string>& names) {
  r.onlyKeys(arm, {"name", "policy", "weight"}, "an [[experiment.arm]]");
  ExperimentArm out;
  out.position = positionOf(arm);
  if (const toml::node* name = arm.get("name")) {
    if (auto text = r.string(*name, "name")) out.name = *text;
    if (!out.name.empty() && !names.insert(out.name).second) r.error(*name, "duplicate arm '" + out.name + "'");
  }
  if (out.name.empty()) r.error(arm.source(), "every arm needs a non-empty name");
  if (const toml::node* policy = arm.get("policy")) {
    if (auto text = r.string(*policy, "policy")) out.policyRef = *text;
  }
  if (out.policyRef.empty()) r.error(arm.source(), "every arm needs a policy (a built-in name or a file)");
  if (auto weight = readWeight(r, arm, "weight must be a whole number from 0 to 100")) out.weight = *weight;
  return out;
}

void readExperiment(TomlReader& r, const toml::table& root, Experiment& experiment) {
  r.onlyKeys(root, {"experiment"}, "an experiment file");
  const toml::table* header = root["experiment"].as_table();
  if (header == nullptr) {
    r.error(root.source(), "[experiment] must be a table");
    return;
  }
  r.onlyKeys(*header, {"name", "design", "block", "washout", "arm", "explore"}, "[experiment]");
  if (const toml::node* node = header->get("name")) {
    if (auto name = r.string(*node, "name")) experiment.name = *name;
  }
  if (experiment.name.empty()) r.error(header->source(), "[experiment] needs a non-empty name");
  readDesign(r, *header, experiment);
  const toml::array* arms = header->get("arm") ? header->get("arm")->as_array() : nullptr;
  if (arms == nullptr || !arms->is_array_of_tables() || arms->empty()) {
    r.error(header->source(), "an experiment needs [[experiment.arm]] tables");
    return;
  }
  std::set<std::string> names;
  uint64_t total = 0;
  for (const toml::node& node : *arms) {
    experiment.arms.push_back(readArm(r, *node.as_table(), names));
    total += experiment.arms.back().weight;
  }
  if (const toml::node* explore = header->get("explore")) {
    if (!readExploration(r, *explore, experiment)) return;  // no weight to add: its error says so already
    if (total + experiment.explore->weight != 100) {
      r.error(header->source(), "arm weights add up to " + std::to_string(total) + " and the explore weight is " +
                                    std::to_string(experiment.explore->weight) + ": " +
                                    std::to_string(total + experiment.explore->weight) + ", not 100");
    }
  } else if (total != 100) {
    r.error(header->source(), "arm weights add up to " + std::to_string(total) + ", not 100");
  }
  checkDesignArms(r, *header, experiment);
}

// toml++ 3.3 (Debian 12) asks is_non_ascii_horizontal_whitespace() about non-ASCII code points between tokens
// and in several string paths. That function splits U+00A0..U+FEFF into chunks of 0x3FA code points and handles
// only the chunks holding whitespace; any other code point of chunks 0, 11 and 63 (U+00A1-U+0499,
// U+2C5E-U+3057 except U+3000, U+FB26-U+FEFE) reaches __builtin_unreachable(): undefined behaviour inside
// NCCL's process. Found by fuzzing (tests/fuzz/corpus/fuzz_policy/toml-unreachable-*). Such files are rejected
// before toml++ sees them; the arithmetic below is toml++'s, so the set matches it code point for code point.
bool tomlMishandles(char32_t c) {
  if (c <= 0xA0 || c >= 0xFEFF || c == 0x3000) return false;
  const uint32_t chunk = static_cast<uint32_t>(c - 0xA0) / 0x3FA;
  return chunk == 0 || chunk == 11 || chunk == 63;
}

std::optional<PolicyError> unsupportedCharacter(const std::string& text, const std::string& source) {
  int line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
    char32_t c = length == 1 ? lead : lead & (0x7F >> length);
    for (size_t k = 1; k < length && i + k < text.size(); ++k)
      c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (length > 1 && tomlMishandles(c)) {
      char code[16];
      std::snprintf(code, sizeof(code), "U+%04X", static_cast<unsigned>(c));
      return PolicyError{source, line, column,
                         std::string("character ") + code + " is not supported in policy files; write it in ASCII"};
    }
    if (lead == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += length;
  }
  return std::nullopt;
}

}  // namespace

PolicyDocument parsePolicyToml(const std::string& text, const std::string& sourceName) {
  PolicyDocument doc;
  if (auto problem = unsupportedCharacter(text, sourceName)) {
    doc.errors.push_back(*problem);
    return doc;
  }
  toml::parse_result parsed = toml::parse(text, sourceName);
  if (!parsed) {
    const toml::parse_error& e = parsed.error();
    doc.errors.push_back({sourceName, static_cast<int>(e.source().begin.line),
                          static_cast<int>(e.source().begin.column), std::string(e.description())});
    return doc;
  }
  const toml::table& root = parsed.table();
  TomlReader reader(sourceName, doc.errors);
  if (root.contains("experiment")) {
    Experiment experiment;
    experiment.source = sourceName;
    readExperiment(reader, root, experiment);
    doc.experiment = std::move(experiment);
  } else if (root.contains("policy")) {
    Policy policy;
    policy.source = sourceName;
    std::vector<bool> selectorsRead;
    readPolicy(reader, root, policy, selectorsRead);
    std::vector<PolicyError> problems = checkPolicy(policy, selectorsRead);
    doc.errors.insert(doc.errors.end(), problems.begin(), problems.end());
    doc.policy = std::move(policy);
  } else {
    doc.errors.push_back({sourceName, 1, 1, "expected a [policy] or an [experiment] table"});
  }
  return doc;
}

}  // namespace nccl_roce::policy
