#include "common/strings.h"

#include <time.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>

namespace nccl_roce {

namespace {
bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
}  // namespace

std::string_view trim(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size() && isSpace(text[begin])) ++begin;
  size_t end = text.size();
  while (end > begin && isSpace(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = text.find(separator, start);
    if (pos == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string toLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::optional<uint64_t> parseUnsigned(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (!isDigit(c)) return std::nullopt;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<int64_t> parseSigned(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string formatFixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

StatusOr<uint64_t> parseByteSize(std::string_view text) {
  std::string_view t = trim(text);
  if (t.empty()) return Status(StatusCode::kInvalidArgument, "empty size");
  size_t digits = 0;
  while (digits < t.size() && isDigit(t[digits])) ++digits;
  if (digits == 0) {
    return Status(StatusCode::kInvalidArgument, "size '" + std::string(t) + "' does not start with a number");
  }
  std::optional<uint64_t> number = parseUnsigned(t.substr(0, digits));
  if (!number) return Status(StatusCode::kInvalidArgument, "size '" + std::string(t) + "' exceeds 2^64-1 bytes");
  std::string unit = toLower(trim(t.substr(digits)));
  unsigned shift = 0;
  if (unit.empty() || unit == "b") {
    shift = 0;
  } else {
    static const char kUnits[] = "kmgtpe";
    size_t index = std::string_view(kUnits).find(unit[0]);
    std::string_view rest = std::string_view(unit).substr(1);
    if (index == std::string_view::npos || !(rest.empty() || rest == "b" || rest == "ib")) {
      return Status(StatusCode::kInvalidArgument,
                    "size '" + std::string(t) + "' has unknown unit '" + unit + "' (expected K, M, G, T, P or E)");
    }
    shift = 10 * static_cast<unsigned>(index + 1);
  }
  if (shift > 0 && *number > (std::numeric_limits<uint64_t>::max() >> shift)) {
    return Status(StatusCode::kInvalidArgument, "size '" + std::string(t) + "' exceeds 2^64-1 bytes");
  }
  return *number << shift;
}

std::string formatByteSize(uint64_t bytes) {
  static const char kUnits[] = "KMGTPE";
  if (bytes == 0) return "0";
  int unit = -1;
  while (unit < 5 && (bytes & 1023u) == 0) {
    bytes >>= 10;
    ++unit;
  }
  std::string out = std::to_string(bytes);
  if (unit >= 0) out += kUnits[unit];
  return out;
}

bool consumePrefix(std::string_view* text, std::string_view prefix) {
  if (!startsWith(*text, prefix)) return false;
  text->remove_prefix(prefix.size());
  return true;
}

std::optional<uint64_t> consumeUnsigned(std::string_view* text) {
  size_t n = 0;
  while (n < text->size() && isDigit((*text)[n])) ++n;
  std::optional<uint64_t> value = parseUnsigned(text->substr(0, n));
  if (value) text->remove_prefix(n);
  return value;
}

std::optional<std::string_view> consumeUntil(std::string_view* text, std::string_view stop) {
  size_t at = text->find(stop);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view out = text->substr(0, at);
  text->remove_prefix(at);
  return out;
}

std::string formatHexId(uint64_t id) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out = "0x0000000000000000";
  for (size_t i = out.size() - 1; id != 0; --i, id >>= 4) out[i] = kDigits[id & 15];
  return out;
}

std::optional<uint64_t> parseHexId(std::string_view text) {
  if (text.size() < 3 || text.size() > 18 || text.substr(0, 2) != "0x") return std::nullopt;
  uint64_t value = 0;
  for (char c : text.substr(2)) {
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return std::nullopt;
    value = value << 4 | static_cast<uint64_t>(digit);
  }
  return value;
}

std::string formatUtcMillis(int64_t ms) {
  int64_t secondsSinceEpoch = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  time_t seconds = static_cast<time_t>(secondsSinceEpoch);
  struct tm parts {};
  gmtime_r(&seconds, &parts);
  char text[80];  // room for any int the format may meet, so it never truncates
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1,
                parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
                static_cast<int>(ms - secondsSinceEpoch * 1000));
  return text;
}

std::optional<int64_t> parseUtcMillis(std::string_view text) {
  // Exactly the fixed width formatUtcMillis writes: digits where it writes digits.
  const std::string_view shape = "dddd-dd-ddTdd:dd:dd.dddZ";
  if (text.size() != shape.size()) return std::nullopt;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 'd' ? !isDigit(text[i]) : text[i] != shape[i]) return std::nullopt;
  }
  auto number = [&](size_t at, size_t width) { return static_cast<int>(*parseUnsigned(text.substr(at, width))); };
  struct tm parts {};
  parts.tm_year = number(0, 4) - 1900;
  parts.tm_mon = number(5, 2) - 1;
  parts.tm_mday = number(8, 2);
  parts.tm_hour = number(11, 2);
  parts.tm_min = number(14, 2);
  parts.tm_sec = number(17, 2);
  if (parts.tm_mon > 11 || parts.tm_mday < 1 || parts.tm_mday > 31 || parts.tm_hour > 23 || parts.tm_min > 59 ||
      parts.tm_sec > 60) {
    return std::nullopt;
  }
  return static_cast<int64_t>(::timegm(&parts)) * 1000 + number(20, 3);
}

bool naturalLess(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (isDigit(a[i]) && isDigit(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && isDigit(a[ie])) ++ie;
      while (je < b.size() && isDigit(b[je])) ++je;
      // Compare digit runs by value: strip leading zeros, then length, then lexicographically.
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return (ie - is) < (je - js);
      int cmp = a.substr(is, ie - is).compare(b.substr(js, je - js));
      if (cmp != 0) return cmp < 0;
      if (ie - i != je - j) return (ie - i) < (je - j);  // "01" after "1": fewer zeros first, for a total order
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return (a.size() - i) < (b.size() - j);
}

}  // namespace nccl_roce
