#include "policy/explore_toml.h"

#include <algorithm>
#include <string>
#include <vector>

#include "policy/chunk_size_toml.h"
#include "policy/exploration.h"
#include "policy/nccl_availability.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::policy {

namespace {

// One value of an explore list and where it was written, for errors about it.
struct Listed {
  int value = 0;
  const toml::node* where = nullptr;
};

bool isListed(const std::vector<Listed>& list, int value) {
  for (const Listed& l : list) {
    if (l.value == value) return true;
  }
  return false;
}

// The algorithm or protocol names under `key`, which is required. A name listed twice would make two arms
// with one name, so it is an error.
std::vector<Listed> readNames(TomlReader& r, const toml::table& table, const char* key,
                              std::optional<int> (*parse)(std::string_view), const std::string& choices) {
  std::vector<Listed> out;
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    r.error(table.source(),
            std::string("[experiment.explore] needs ") + key + " (a name or a list of: " + choices + ")");
    return out;
  }
  for (auto& [name, where] : r.names(*node, key)) {
    std::optional<int> value = parse(name);
    if (!value) {
      r.error(*where, "unknown " + std::string(key) + " '" + name + "' (expected one of: " + choices + ")");
    } else if (isListed(out, *value)) {
      r.error(*where, std::string(key) + " '" + name + "' is listed twice");
    } else {
      out.push_back({*value, where});
    }
  }
  return out;
}

// A channel count or a list of them; omitted: NCCL decides (0) only.
std::vector<Listed> readChannels(TomlReader& r, const toml::table& table) {
  const toml::node* node = table.get("channels");
  if (node == nullptr) return {{0, nullptr}};
  std::vector<const toml::node*> values;
  if (const toml::array* array = node->as_array()) {
    if (array->empty()) r.error(*node, "channels must not be an empty list (omit it: NCCL decides)");
    for (const toml::node& element : *array) values.push_back(&element);
  } else {
    values.push_back(node);
  }
  std::vector<Listed> out;
  for (const toml::node* value : values) {
    int64_t channels = value->is_integer() ? *value->value<int64_t>() : -1;
    if (channels < 0 || channels > kMaxChannels) {
      r.error(*value, "channels must be whole numbers from 0 (NCCL decides) to 64");
    } else if (isListed(out, static_cast<int>(channels))) {
      r.error(*value, "channels " + std::to_string(channels) + " is listed twice");
    } else {
      out.push_back({static_cast<int>(channels), value});
    }
  }
  return out;
}

// One explored chunk size as written, with where, for errors about it.
struct ListedChunk {
  telemetry::ChunkSize chunk;
  const toml::node* where = nullptr;
};

// A chunk size or a list of them; omitted: NCCL's own only.
std::vector<ListedChunk> readChunkSizeList(TomlReader& r, const toml::table& table) {
  const toml::node* node = table.get("chunk_size");
  if (node == nullptr) return {{telemetry::ChunkSize::nccl(), nullptr}};
  std::vector<const toml::node*> values;
  if (const toml::array* array = node->as_array()) {
    if (array->empty()) r.error(*node, "chunk_size must not be an empty list (omit it: NCCL's own)");
    for (const toml::node& element : *array) values.push_back(&element);
  } else {
    values.push_back(node);
  }
  std::vector<ListedChunk> out;
  for (const toml::node* value : values) {
    std::optional<telemetry::ChunkSize> chunk = readChunkSize(r, *value, "chunk_size");
    if (!chunk) continue;
    bool listed = std::any_of(out.begin(), out.end(), [&](const ListedChunk& l) { return l.chunk == *chunk; });
    if (listed) {
      r.error(*value, "chunk_size " + telemetry::formatChunkSize(*chunk) + " is listed twice");
    } else {
      out.push_back({*chunk, value});
    }
  }
  return out;
}

// The written arm named by `base`; omitted: the first written arm.
std::string readBase(TomlReader& r, const toml::table& table, const std::vector<ExperimentArm>& written) {
  const toml::node* node = table.get("base");
  if (node == nullptr) return written.empty() ? "" : written.front().name;
  std::optional<std::string> name = r.string(*node, "base");
  if (!name) return "";
  std::string names;
  for (const ExperimentArm& arm : written) {
    if (arm.name == *name) return *name;
    names += (names.empty() ? "" : ", ") + arm.name;
  }
  r.error(*node, "base '" + *name + "' is not a written arm of this experiment (expected one of: " + names + ")");
  return "";
}

// The calls explored: collective is required (exploring every collective at once is rarely meant), size and
// nodes default to all.
struct Selectors {
  uint32_t collectives = 0;
  ValueRange bytes;
  ValueRange nodes;
};

Selectors readSelectors(TomlReader& r, const toml::table& table) {
  Selectors s;
  if (const toml::node* node = table.get("collective")) {
    s.collectives = readCollectives(r, *node);
  } else {
    r.error(table.source(),
            "[experiment.explore] needs collective (a name or a list of: " + telemetry::collectiveChoices() + ")");
  }
  if (const toml::node* node = table.get("size")) s.bytes = r.range(*node, "size", RangeUnit::kBytes).value_or(s.bytes);
  if (const toml::node* node = table.get("nodes"))
    s.nodes = r.range(*node, "nodes", RangeUnit::kCount).value_or(s.nodes);
  return s;
}

ValueRange intersection(const ValueRange& a, const ValueRange& b) {
  return {a.lo > b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
}

// Whether NCCL can use an explored chunk size for `algorithm` with `protocol` on some listed collective (with
// NCCL's default buffers: an experiment has no [env]); an error at the value otherwise.
bool chunkUsable(TomlReader& r, const ListedChunk& c, int algorithm, int protocol, uint32_t collectives) {
  if (c.chunk.kind != telemetry::ChunkSize::Kind::kBytes) return true;
  std::vector<CallKind> kinds;
  for (int coll = 0; coll < telemetry::kNumCollectives; ++coll) {
    if (collectives & (1u << coll)) kinds.push_back({coll, algorithm});
  }
  std::string problem = chunkProblem(c.chunk.bytes, protocol, kinds, NcclBuffers{});
  if (problem.empty()) return true;
  r.error(*c.where, "chunk_size " + telemetry::formatChunkSize(c.chunk) + " for " +
                        telemetry::algorithmName(algorithm) + "/" + telemetry::protocolName(protocol) + ": " + problem);
  return false;
}

// One choice per combination NCCL can run for some listed collective at some listed node count, narrowed to
// those; any other combination is an error at the name that rules it out.
void addChoices(TomlReader& r, const std::vector<Listed>& algorithms, const std::vector<Listed>& protocols,
                const std::vector<Listed>& channels, const std::vector<ListedChunk>& chunks, const Selectors& s,
                Exploration& out) {
  for (const Listed& a : algorithms) {
    const std::string algorithm = telemetry::algorithmName(a.value);
    const uint32_t collectives = s.collectives & collectivesOffered(a.value);
    const ValueRange nodes = intersection(s.nodes, nodesOffered(a.value));
    if (collectives == 0) {
      r.error(*a.where, "NCCL never runs " + algorithm + " for " + collectiveList(s.collectives) + " (it runs " +
                            algorithm + " for " + collectiveList(collectivesOffered(a.value)) + " only)");
      continue;
    }
    if (nodes.lo > nodes.hi) {
      r.error(*a.where, "NCCL never runs " + algorithm + " on nodes " + formatValueRange(s.nodes, RangeUnit::kCount) +
                            " (only on nodes " + formatValueRange(nodesOffered(a.value), RangeUnit::kCount) + ")");
      continue;
    }
    for (const Listed& p : protocols) {
      if (!protocolOffered(a.value, p.value)) {
        r.error(*p.where, "NCCL never runs " + algorithm + " with " + telemetry::protocolName(p.value) + " (it runs " +
                              algorithm + " with " + protocolsOfferedList(a.value) + " only)");
        continue;
      }
      // Once per algorithm and protocol: the channel counts do not change what NCCL can use, nor its error.
      std::vector<const ListedChunk*> usable;
      for (const ListedChunk& k : chunks) {
        if (chunkUsable(r, k, a.value, p.value, collectives)) usable.push_back(&k);
      }
      for (const Listed& c : channels) {
        for (const ListedChunk* k : usable)
          out.choices.push_back({a.value, p.value, c.value, k->chunk, collectives, nodes});
      }
    }
  }
}

// Generated arms, named after their choices. A written arm of the same name would make statistics ambiguous.
void nameArms(TomlReader& r, const toml::table& table, const std::vector<ExperimentArm>& written,
              Exploration& explore) {
  if (explore.choices.size() > kMaxExploredArms) {
    r.error(table.source(), std::to_string(explore.choices.size()) + " generated arms (algorithms x protocols x " +
                                "channels x chunk sizes), more than " + std::to_string(kMaxExploredArms) +
                                ": each would get too thin a share of communicators to measure; explore fewer "
                                "combinations at a time");
    explore.choices.clear();
    return;
  }
  for (const ExploredChoice& choice : explore.choices) {
    ExperimentArm arm;
    arm.name = exploredArmName(choice);
    arm.position = explore.position;
    for (const ExperimentArm& other : written) {
      if (other.name == arm.name) {
        r.error(other.position, "arm '" + arm.name +
                                    "' has the name of a generated arm of [experiment.explore] (line " +
                                    std::to_string(explore.position.line) + "); rename it");
      }
    }
    explore.arms.push_back(std::move(arm));
  }
}

}  // namespace

bool readExploration(TomlReader& r, const toml::node& node, Experiment& experiment) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    r.error(node, "[experiment.explore] must be one table (write it as [experiment.explore])");
    return false;
  }
  r.onlyKeys(*table,
             {"weight", "base", "collective", "size", "nodes", "algorithm", "protocol", "channels", "chunk_size"},
             "[experiment.explore]");
  Exploration explore;
  explore.position = positionOf(*table);
  std::optional<uint32_t> weight =
      readWeight(r, *table,
                 "[experiment.explore] needs weight, a whole number from 0 to 100: the percent of communicators "
                 "its generated arms share");
  explore.weight = weight.value_or(0);
  explore.base = readBase(r, *table, experiment.arms);
  const Selectors selectors = readSelectors(r, *table);
  explore.bytes = selectors.bytes;
  const std::vector<Listed> algorithms =
      readNames(r, *table, "algorithm", telemetry::parseAlgorithm, telemetry::algorithmChoices());
  const std::vector<Listed> protocols =
      readNames(r, *table, "protocol", telemetry::parseProtocol, telemetry::protocolChoices());
  const std::vector<Listed> channels = readChannels(r, *table);
  const std::vector<ListedChunk> chunks = readChunkSizeList(r, *table);
  if (selectors.collectives != 0) addChoices(r, algorithms, protocols, channels, chunks, selectors, explore);
  nameArms(r, *table, experiment.arms, explore);
  experiment.explore = std::move(explore);
  return weight.has_value();
}

}  // namespace nccl_roce::policy
