#include "nccl-tests-integration/sweep/log_text.h"

#include <charconv>
#include <cmath>

#include "common/strings.h"

namespace nccl_roce::sweep {

namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isUpper(char c) {
  return c >= 'A' && c <= 'Z';
}
bool isLower(char c) {
  return c >= 'a' && c <= 'z';
}

// Length of an Open MPI rank tag "[jobid,rank]" ending just before `end`, or 0.
size_t rankTagLength(std::string_view line, size_t end) {
  if (end == 0 || line[end - 1] != ']') return 0;
  size_t i = end - 1;
  bool comma = false;
  while (i > 0) {
    --i;
    char c = line[i];
    if (c == '[') return comma && i + 2 < end ? end - i : 0;
    if (c == ',') {
      if (comma) return 0;
      comma = true;
    } else if (!isDigit(c)) {
      return 0;
    }
  }
  return 0;
}

// Length of a ctime(3)-style stamp "Thu Jul 18 15:41:05 2024" ending just before `end`, or 0.
size_t ctimeStampLength(std::string_view line, size_t end) {
  constexpr size_t kLength = 24;
  if (end < kLength) return 0;
  std::string_view s = line.substr(end - kLength, kLength);
  // Www Mmm dd hh:mm:ss yyyy
  const char* shape = "Aaa Aaa _9 99:99:99 9999";
  for (size_t i = 0; i < kLength; ++i) {
    char want = shape[i], c = s[i];
    bool ok = (want == 'A' && isUpper(c)) || (want == 'a' && isLower(c)) || (want == '9' && isDigit(c)) ||
              (want == '_' && (c == ' ' || isDigit(c))) || want == c;
    if (!ok) return 0;
  }
  return kLength;
}

}  // namespace

std::string stripLauncherTags(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string out(line);
  for (std::string_view tag : {std::string_view("<stdout>:"), std::string_view("<stderr>:")}) {
    size_t pos = 0;
    while ((pos = out.find(tag, pos)) != std::string::npos) {
      size_t prefix = rankTagLength(out, pos);
      if (prefix == 0) prefix = ctimeStampLength(out, pos);
      out.erase(pos - prefix, prefix + tag.size());
      pos -= prefix;
    }
  }
  // srun --label: "  3: text". Data rows never have a colon after their first number.
  size_t i = 0;
  while (i < out.size() && out[i] == ' ') ++i;
  size_t d = i;
  while (d < out.size() && isDigit(out[d])) ++d;
  if (d > i && d < out.size() && out[d] == ':' && (d + 1 == out.size() || out[d + 1] == ' ')) {
    out.erase(0, d + 1 == out.size() ? d + 1 : d + 2);
  }
  return out;
}

std::vector<std::string_view> splitFields(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  return fields;
}

std::optional<double> parseDecimal(std::string_view token) {
  if (token.empty()) return std::nullopt;
  // from_chars rejects a leading '+', accepts "inf"/"nan": both handled here.
  if (token.front() == '+') token.remove_prefix(1);
  double value = 0;
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string shorten(std::string_view text, size_t limit) {
  text = trim(text);
  if (text.size() <= limit) return std::string(text);
  return std::string(text.substr(0, limit)) + "...";
}

}  // namespace nccl_roce::sweep
