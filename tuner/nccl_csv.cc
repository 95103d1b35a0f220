#include "tuner/nccl_csv.h"

#include "common/strings.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::tuner {

namespace {

constexpr size_t kMaxLineBytes = 4096;
constexpr size_t kMaxRules = 65536;  // as for TOML policies

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

}  // namespace

bool looksLikeNcclCsv(const std::string& path) { return endsWith(path, ".csv") || endsWith(path, ".conf"); }

PolicyDocument parseNcclCsv(const std::string& text, const std::string& sourceName) {
  PolicyDocument doc;
  Policy policy;
  policy.name = "nccl-csv";
  policy.source = sourceName;
  policy.contentHash = fnv1a64(text);
  policy.unavailableFallsThrough = true;
  int lineNumber = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++lineNumber;
    auto error = [&](int column, const std::string& message) {
      doc.errors.push_back({sourceName, lineNumber, column, message});
    };
    if (raw.size() > kMaxLineBytes) {
      error(1, "line longer than " + std::to_string(kMaxLineBytes) + " bytes");
      continue;
    }
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    std::vector<Field> f = splitFields(raw);
    if (f.size() < 8 || f.size() > 10) {
      error(1, "expected 8 to 10 fields (collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,"
               "nRanks[,numPipeOps[,regBuff]]), got " + std::to_string(f.size()));
      continue;
    }
    Rule rule;
    rule.position = {lineNumber, 1};
    if (auto c = parseCollective(f[0].text)) {
      rule.collectives = 1u << *c;
    } else {
      error(f[0].column, "unknown collective '" + std::string(f[0].text) + "' (expected one of: " + collectiveChoices() + ")");
    }
    auto lo = parseUnsigned(f[1].text);
    auto hi = parseUnsigned(f[2].text);
    if (!lo) error(f[1].column, "min_bytes '" + std::string(f[1].text) + "' is not a byte count below 2^64");
    if (!hi) error(f[2].column, "max_bytes '" + std::string(f[2].text) + "' is not a byte count below 2^64");
    if (lo && hi) {
      if (*lo > *hi) error(f[1].column, "inverted range: min_bytes " + std::to_string(*lo) + " is above max_bytes " + std::to_string(*hi));
      rule.bytes = {*lo, *hi};
    }
    auto a = parseAlgorithm(f[3].text);
    auto p = parseProtocol(f[4].text);
    if (!a) error(f[3].column, "unknown algorithm '" + std::string(f[3].text) + "' (expected one of: " + algorithmChoices() + ")");
    if (!p) error(f[4].column, "unknown protocol '" + std::string(f[4].text) + "' (expected one of: " + protocolChoices() + ")");
    if (a && p) rule.choices.push_back({*a, *p});
    std::optional<uint64_t> channels;
    if (!parseWildcard(f[5], channels) || (channels && (*channels == 0 || *channels > 64))) {
      error(f[5].column, "channels must be -1 (keep NCCL's) or 1..64");
    } else {
      rule.channels = channels ? static_cast<int>(*channels) : 0;
    }
    struct Selector {
      size_t index;
      const char* what;
      ValueRange* target;
    };
    for (const Selector& s : {Selector{6, "nNodes", &rule.nodes}, Selector{7, "nRanks", &rule.ranks},
                              Selector{8, "numPipeOps", &rule.pipeOps}}) {
      if (s.index >= f.size()) continue;
      std::optional<uint64_t> value;
      if (!parseWildcard(f[s.index], value)) {
        error(f[s.index].column, std::string(s.what) + " must be -1 or a whole number");
      } else if (value) {
        *s.target = {*value, *value};
      }
    }
    if (f.size() == 10) {
      std::optional<uint64_t> value;
      if (!parseWildcard(f[9], value) || (value && *value > 1)) {
        error(f[9].column, "regBuff must be -1, 0 or 1");
      } else if (value) {
        rule.regBuff = *value == 1;
      }
    }
    if (policy.rules.size() >= kMaxRules) {
      error(1, "more than " + std::to_string(kMaxRules) + " rules");
      break;
    }
    policy.rules.push_back(std::move(rule));
  }
  doc.policy = std::move(policy);
  return doc;
}

}  // namespace nccl_roce::tuner
