#include "tuner/nccl_names.h"

#include <cctype>

namespace nccl_roce::tuner {

namespace {

const char* const kCollectives[kNumCollectives] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"};
const char* const kAlgorithms[kMaxAlgorithms] = {"Tree", "Ring", "CollNetDirect", "CollNetChain",
                                                 "NVLS", "NVLSTree", "PAT"};
const char* const kProtocols[kNumProtocols] = {"LL", "LL128", "Simple"};

std::string normalise(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '_' || c == '-') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

template <size_t N>
std::optional<int> find(const char* const (&names)[N], std::string_view name) {
  std::string wanted = normalise(name);
  for (size_t i = 0; i < N; ++i) {
    if (normalise(names[i]) == wanted) return static_cast<int>(i);
  }
  return std::nullopt;
}

template <size_t N>
std::string list(const char* const (&names)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out += (i ? ", " : "") + normalise(names[i]);
  return out;
}

}  // namespace

const char* collectiveName(int c) { return c >= 0 && c < kNumCollectives ? kCollectives[c] : "unknown"; }
const char* algorithmName(int a) { return a >= 0 && a < kMaxAlgorithms ? kAlgorithms[a] : a == -1 ? "any" : "unknown"; }
const char* protocolName(int p) { return p >= 0 && p < kNumProtocols ? kProtocols[p] : p == -1 ? "any" : "unknown"; }

std::optional<int> parseCollective(std::string_view name) { return find(kCollectives, name); }
std::optional<int> parseAlgorithm(std::string_view name) { return find(kAlgorithms, name); }
std::optional<int> parseProtocol(std::string_view name) { return find(kProtocols, name); }

std::string collectiveChoices() { return list(kCollectives); }
std::string algorithmChoices() { return list(kAlgorithms); }
std::string protocolChoices() { return list(kProtocols); }

}  // namespace nccl_roce::tuner
