#include "gid/hca_list.h"

#include "common/strings.h"

namespace nccl_roce::gid {

namespace {

// NCCL keeps each name in a 64-byte buffer.
constexpr size_t kNcclNameBytes = 63;

// atoi as NCCL applies it to the port field: leading blanks and a sign, then digits up to the first other
// character ("1x" is 1, "x" is 0). Clamped instead of overflowing.
int atoiLike(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  long value = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (value < 1000000) value = value * 10 + (text[i] - '0');
  }
  return static_cast<int>(negative ? -value : value);
}

}  // namespace

NcclHcaList NcclHcaList::parse(std::string_view text) {
  NcclHcaList list;
  if (!text.empty() && text.front() == '^') {
    list.exclude_ = true;
    text.remove_prefix(1);
  }
  if (!text.empty() && text.front() == '=') {
    list.exact_ = true;
    text.remove_prefix(1);
  }
  for (std::string_view token : split(text, ',')) {
    if (token.empty()) continue;  // strtok_r skips empty tokens
    if (list.entries_.size() >= kNcclMaxHcaListEntries) break;
    std::vector<std::string_view> fields = split(token, ':');
    if (fields[0].empty()) continue;  // ":1" names no device
    Entry entry;
    entry.name = std::string(fields[0].substr(0, kNcclNameBytes));
    if (fields.size() > 1 && !fields[1].empty()) entry.port = atoiLike(fields[1]);
    list.entries_.push_back(std::move(entry));
  }
  return list;
}

bool NcclHcaList::admits(const std::string& name, int port) const {
  bool listed = entries_.empty();
  for (const auto& entry : entries_) {
    bool nameMatches = exact_ ? name == entry.name : startsWith(name, entry.name);
    bool portMatches = entry.port == -1 || port == -1 || entry.port == port;
    if (nameMatches && portMatches) {
      listed = true;
      break;
    }
  }
  return listed != exclude_;
}

}  // namespace nccl_roce::gid
