#include "telemetry/tuner_info_line.h"

#include "common/strings.h"

namespace nccl_roce::telemetry {

namespace {

constexpr std::string_view kComm = "tuner: comm ";

std::string joinArms(const std::vector<std::string>& arms) {
  std::string out;
  for (const std::string& arm : arms) out += (out.empty() ? "" : ", ") + arm;
  return out;
}

// "'NAME' (DIGEST)" of an experiment.
bool readExperiment(std::string_view* m, TunerInfoLine* t) {
  std::optional<std::string_view> name, digest;
  if (!(name = consumeUntil(m, "' (")) || !consumePrefix(m, "' (") || !(digest = consumeUntil(m, ")")) ||
      !consumePrefix(m, ")")) {
    return false;
  }
  t->experiment = std::string(*name);
  t->experimentDigest = std::string(*digest);
  return true;
}

std::optional<int> smallInt(std::optional<uint64_t> value) {
  if (!value || *value > (1u << 30)) return std::nullopt;
  return static_cast<int>(*value);
}

std::optional<uint32_t> count32(std::optional<uint64_t> value) {
  if (!value || *value > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*value);
}

// "arms A, B in turns of T tuner calls, U turns a round"
bool readSwitchback(std::string_view m, TunerInfoLine* t) {
  std::optional<std::string_view> arms;
  std::optional<uint32_t> block, turns;
  if (!consumePrefix(&m, "arms ") || !(arms = consumeUntil(&m, " in turns of ")) ||
      !consumePrefix(&m, " in turns of ") || !(block = count32(consumeUnsigned(&m))) ||
      !consumePrefix(&m, " tuner calls, ") || !(turns = count32(consumeUnsigned(&m))) || m != " turns a round") {
    return false;
  }
  t->switchback = true;
  for (std::string_view arm : split(*arms, ',')) t->arms.emplace_back(trim(arm));
  t->block = *block;
  t->turnsPerRound = *turns;
  return true;
}

// "'NAME' (SOURCE, DIGEST)[, experiment 'E' (DIGEST) arm A]: K of M rules apply"
bool readPolicy(std::string_view m, TunerInfoLine* t) {
  std::optional<std::string_view> name, source, digest;
  if (!(name = consumeUntil(&m, "' (")) || !consumePrefix(&m, "' (") || !(source = consumeUntil(&m, ", ")) ||
      !consumePrefix(&m, ", ") || !(digest = consumeUntil(&m, ")")) || !consumePrefix(&m, ")")) {
    return false;
  }
  t->policy = std::string(*name);
  t->source = std::string(*source);
  t->digest = std::string(*digest);
  if (consumePrefix(&m, ", experiment '")) {
    std::optional<std::string_view> arm;
    if (!readExperiment(&m, t) || !consumePrefix(&m, " arm ") || !(arm = consumeUntil(&m, ": "))) return false;
    t->arm = std::string(*arm);
  }
  std::optional<uint64_t> applying, rules;
  if (!consumePrefix(&m, ": ") || !(applying = consumeUnsigned(&m)) || !consumePrefix(&m, " of ") ||
      !(rules = consumeUnsigned(&m)) || m != " rules apply") {
    return false;
  }
  t->rulesApplying = static_cast<size_t>(*applying);
  t->rules = static_cast<size_t>(*rules);
  return true;
}

}  // namespace

std::string renderTunerInfoLine(const TunerInfoLine& t) {
  std::string out = std::string(kComm) + formatHexId(t.commId) + " (" + std::to_string(t.nRanks) + " ranks, " +
                    std::to_string(t.nNodes) + " nodes) ";
  if (t.switchback) {
    return out + "runs experiment '" + t.experiment + "' (" + t.experimentDigest + ") as a switchback: arms " +
           joinArms(t.arms) + " in turns of " + std::to_string(t.block) + " tuner calls, " +
           std::to_string(t.turnsPerRound) + " turns a round";
  }
  out += "uses policy '" + t.policy + "' (" + t.source + ", " + t.digest + ")";
  if (!t.experiment.empty()) out += ", experiment '" + t.experiment + "' (" + t.experimentDigest + ") arm " + t.arm;
  return out + ": " + std::to_string(t.rulesApplying) + " of " + std::to_string(t.rules) + " rules apply";
}

std::optional<TunerInfoLine> parseTunerInfoLine(std::string_view m) {
  TunerInfoLine t;
  std::optional<std::string_view> id;
  std::optional<uint64_t> comm;
  std::optional<int> ranks, nodes;
  if (!consumePrefix(&m, kComm) || !(id = consumeUntil(&m, " (")) || !(comm = parseHexId(*id)) ||
      !consumePrefix(&m, " (") || !(ranks = smallInt(consumeUnsigned(&m))) || !consumePrefix(&m, " ranks, ") ||
      !(nodes = smallInt(consumeUnsigned(&m))) || !consumePrefix(&m, " nodes) ")) {
    return std::nullopt;
  }
  t.commId = *comm;
  t.nRanks = *ranks;
  t.nNodes = *nodes;
  bool read = consumePrefix(&m, "runs experiment '")
                  ? readExperiment(&m, &t) && consumePrefix(&m, " as a switchback: ") && readSwitchback(m, &t)
                  : consumePrefix(&m, "uses policy '") && readPolicy(m, &t);
  if (!read) return std::nullopt;
  return t;
}

}  // namespace nccl_roce::telemetry
