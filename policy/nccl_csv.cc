#include "policy/nccl_csv.h"

#include "common/strings.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::policy {

namespace {

constexpr size_t kMaxLineBytes = 4096;

struct Field {
  std::string_view text;
  int column;
};

std::vector<Field> splitFields(std::string_view line) {
  std::vector<Field> out;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    std::string_view raw = line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t lead = raw.find_first_not_of(" \t");
    out.push_back({trim(raw), static_cast<int>(start + (lead == std::string_view::npos ? 0 : lead)) + 1});
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

// A value that may be -1 (wildcard): nullopt for -1.
bool parseWildcard(const Field& f, std::optional<uint64_t>& out) {
  if (f.text == "-1") {
    out.reset();
    return true;
  }
  out = parseUnsigned(f.text);
  return out.has_value();
}

// The fields of one line, read into a rule; every problem is reported at its column.
class LineReader {
 public:
  LineReader(const std::string& source, int line, std::vector<PolicyError>& errors)
      : source_(source), line_(line), errors_(errors) {}

  void error(int column, const std::string& message) { errors_.push_back({source_, line_, column, message}); }

  Rule read(const std::vector<Field>& f) {
    Rule rule;
    rule.position = {line_, 1};
    if (auto c = telemetry::parseCollective(f[0].text)) {
      rule.collectives = 1u << *c;
    } else {
      error(f[0].column, "unknown collective '" + std::string(f[0].text) +
                             "' (expected one of: " + telemetry::collectiveChoices() + ")");
    }
    readBytes(f[1], f[2], rule);
    readChoice(f[3], f[4], rule);
    std::optional<uint64_t> channels;
    if (!parseWildcard(f[5], channels) || (channels && (*channels == 0 || *channels > 64))) {
      error(f[5].column, "channels must be -1 (keep NCCL's) or 1..64");
    } else {
      rule.channels = channels ? static_cast<int>(*channels) : 0;
    }
    readCount(f[6], "nNodes", rule.nodes);
    readCount(f[7], "nRanks", rule.ranks);
    if (f.size() > 8) readCount(f[8], "numPipeOps", rule.pipeOps);
    if (f.size() > 9) readRegBuff(f[9], rule);
    return rule;
  }

 private:
  void readBytes(const Field& min, const Field& max, Rule& rule) {
    auto lo = parseUnsigned(min.text);
    // The example reads max_bytes with strtoull, which turns -1 into 2^64-1: "no upper bound".
    auto hi = max.text == "-1" ? std::optional<uint64_t>(UINT64_MAX) : parseUnsigned(max.text);
    if (!lo) error(min.column, "min_bytes '" + std::string(min.text) + "' is not a byte count below 2^64");
    if (!hi) error(max.column, "max_bytes '" + std::string(max.text) + "' is not a byte count below 2^64 (or -1)");
    if (lo && hi) {
      if (*lo > *hi)
        error(min.column,
              "inverted range: min_bytes " + std::to_string(*lo) + " is above max_bytes " + std::to_string(*hi));
      rule.bytes = {*lo, *hi};
    }
  }

  void readChoice(const Field& algorithm, const Field& protocol, Rule& rule) {
    auto a = telemetry::parseAlgorithm(algorithm.text);
    auto p = telemetry::parseProtocol(protocol.text);
    if (!a)
      error(algorithm.column, "unknown algorithm '" + std::string(algorithm.text) +
                                  "' (expected one of: " + telemetry::algorithmChoices() + ")");
    if (!p)
      error(protocol.column, "unknown protocol '" + std::string(protocol.text) +
                                 "' (expected one of: " + telemetry::protocolChoices() + ")");
    if (a && p) rule.choices.push_back({*a, *p});
  }

  void readCount(const Field& field, const char* what, ValueRange& target) {
    std::optional<uint64_t> value;
    if (!parseWildcard(field, value)) {
      error(field.column, std::string(what) + " must be -1 or a whole number");
    } else if (value) {
      target = {*value, *value};
    }
  }

  void readRegBuff(const Field& field, Rule& rule) {
    std::optional<uint64_t> value;
    if (!parseWildcard(field, value) || (value && *value > 1)) {
      error(field.column, "regBuff must be -1, 0 or 1");
    } else if (value) {
      rule.regBuff = *value == 1;
    }
  }

  const std::string& source_;
  int line_;
  std::vector<PolicyError>& errors_;
};

}  // namespace

bool looksLikeNcclCsv(const std::string& path) {
  return endsWith(path, ".csv") || endsWith(path, ".conf");
}

PolicyDocument parseNcclCsv(const std::string& text, const std::string& sourceName) {
  PolicyDocument doc;
  Policy policy;
  policy.name = "nccl-csv";
  policy.source = sourceName;
  policy.unavailableFallsThrough = true;
  int lineNumber = 0;
  for (std::string_view raw : split(text, '\n')) {
    LineReader reader(sourceName, ++lineNumber, doc.errors);
    if (raw.size() > kMaxLineBytes) {
      reader.error(1, "line longer than " + std::to_string(kMaxLineBytes) + " bytes");
      continue;
    }
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    std::vector<Field> fields = splitFields(raw);
    if (fields.size() < 8 || fields.size() > 10) {
      reader.error(1,
                   "expected 8 to 10 fields (collective_type,min_bytes,max_bytes,algorithm,protocol,channels,"
                   "nNodes,nRanks[,numPipeOps[,regBuff]]), got " +
                       std::to_string(fields.size()));
      continue;
    }
    Rule rule = reader.read(fields);
    if (policy.rules.size() >= kMaxPolicyRules) {
      reader.error(1, "more than " + std::to_string(kMaxPolicyRules) + " rules");
      break;
    }
    policy.rules.push_back(std::move(rule));
  }
  doc.policy = std::move(policy);
  return doc;
}

}  // namespace nccl_roce::policy
