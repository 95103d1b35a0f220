#include "telemetry/nccl_names.h"

namespace nccl_roce::telemetry {

namespace {

const char* const kCollectives[kNumCollectives] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"};
const char* const kAlgorithms[kMaxAlgorithms] = {"Tree",     "Ring", "CollNetDirect", "CollNetChain", "NVLS",
                                                 "NVLSTree", "PAT"};
const char* const kProtocols[kNumProtocols] = {"LL", "LL128", "Simple"};
// ncclDataType_t's names in code order, and the size of each.
const char* const kDataTypes[] = {"ncclInt8",    "ncclUint8",    "ncclInt32",      "ncclUint32",
                                  "ncclInt64",   "ncclUint64",   "ncclFloat16",    "ncclFloat32",
                                  "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
const size_t kDataTypeSizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
constexpr int kNumDataTypes = static_cast<int>(sizeof(kDataTypeSizes) / sizeof(kDataTypeSizes[0]));

bool ignored(char c) {
  return c == '_' || c == '-';
}
char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// The two names letter by letter, case and separators aside.
bool sameName(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  for (;;) {
    while (i < a.size() && ignored(a[i])) ++i;
    while (j < b.size() && ignored(b[j])) ++j;
    if (i == a.size() || j == b.size()) return i == a.size() && j == b.size();
    if (lower(a[i++]) != lower(b[j++])) return false;
  }
}

template <size_t N>
std::optional<int> find(const char* const (&names)[N], std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (size_t i = 0; i < N; ++i) {
    if (sameName(names[i], name)) return static_cast<int>(i);
  }
  return std::nullopt;
}

// What error messages offer: the names as a policy writes them.
template <size_t N>
std::string list(const char* const (&names)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) out += ", ";
    for (const char* c = names[i]; *c != '\0'; ++c) out += lower(*c);
  }
  return out;
}

}  // namespace

const char* collectiveName(int c) {
  return c >= 0 && c < kNumCollectives ? kCollectives[c] : "unknown";
}
const char* algorithmName(int a) {
  return a >= 0 && a < kMaxAlgorithms ? kAlgorithms[a] : a == -1 ? "any" : "unknown";
}
const char* protocolName(int p) {
  return p >= 0 && p < kNumProtocols ? kProtocols[p] : p == -1 ? "any" : "unknown";
}

std::optional<int> parseCollective(std::string_view name) {
  return find(kCollectives, name);
}
std::optional<int> parseAlgorithm(std::string_view name) {
  return find(kAlgorithms, name);
}
std::optional<int> parseProtocol(std::string_view name) {
  return find(kProtocols, name);
}

std::string collectiveChoices() {
  return list(kCollectives);
}
std::string algorithmChoices() {
  return list(kAlgorithms);
}
std::string protocolChoices() {
  return list(kProtocols);
}

size_t dataTypeSize(std::string_view name) {
  std::optional<int> code = find(kDataTypes, name);
  return code && *code >= 0 && *code < kNumDataTypes ? kDataTypeSizes[*code] : 0;
}

}  // namespace nccl_roce::telemetry
