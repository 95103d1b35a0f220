#include "gid/forced_index.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "common/strings.h"

namespace nccl_roce::gid {

namespace {

// NCCL's ncclLoadParam: strtoll with base 0 on a non-empty value; an out-of-range value means the default.
std::optional<ForcedIndex> ncclReading(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 0);
  if (errno != 0 || value < 0) return std::nullopt;  // default (-1): NCCL chooses per device
  ForcedIndex forced{"NCCL_IB_GID_INDEX", text, static_cast<int>(value > 65535 ? 65535 : value), ""};
  std::string_view clean = trim(text);
  if (end == nullptr || *end != '\0' || !parseUnsigned(clean) || (clean.size() > 1 && clean.front() == '0')) {
    forced.readingNote = "NCCL reads NCCL_IB_GID_INDEX='" + text + "' as " + std::to_string(forced.index) +
                         " (strtoll with base auto-detection)";
  }
  return forced;
}

// UCX: "auto" or a number; NVSHMEM: a number, -1 meaning automatic.
std::optional<ForcedIndex> numericReading(const std::string& variable, const std::string& text, bool autoAllowed,
                                          std::string* oddity) {
  std::string_view clean = trim(text);
  if (clean.empty() || clean == "-1" || (autoAllowed && toLower(clean) == "auto")) return std::nullopt;
  std::optional<uint64_t> value = parseUnsigned(clean);
  if (!value || *value > 65535) {
    *oddity = variable + "='" + text + "' (set by the user) is not a GID index" + (autoAllowed ? " or 'auto'" : "");
    return std::nullopt;
  }
  return ForcedIndex{variable, text, static_cast<int>(*value), ""};
}

const PortInfo* findPort(const Machine& machine, const std::string& device, int number) {
  for (const auto& d : machine.devices) {
    if (d.name != device) continue;
    for (const auto& p : d.ports) {
      if (p.number == number) return &p;
    }
  }
  return nullptr;
}

// What the forced entry is, in words; empty when it is a GID this pod can use.
std::string whatItHolds(const Machine& machine, const ForcedGid& forced) {
  const GidEntry& e = forced.entry;
  if (!forced.valueProblem.empty()) {
    return startsWith(forced.valueProblem, "gids/" + std::to_string(e.index) + " missing")
               ? "an index past the end of the GID table"
               : "an entry that cannot be read (" + forced.valueProblem + ")";
  }
  if (e.value.isZero()) return "an empty entry";
  std::string gid = "GID " + e.value.toAddressString();
  if (e.value.isIpv6LinkLocal()) return "the link-local " + gid;
  if (e.type && *e.type != GidType::kRoceV2) return "the RoCE v1 " + gid;
  if (!e.netdev) return gid + ", whose netdev cannot be read";
  if (machine.visibleNetdevs.count(*e.netdev) == 0)
    return gid + " on " + *e.netdev + ", outside this network namespace";
  if (machine.addresses) {
    auto own = machine.addressesOf(*e.netdev);
    if (std::find(own.begin(), own.end(), e.value) == own.end()) {
      return gid + ", an address not configured on " + *e.netdev + " here (another pod's)";
    }
  }
  if (!e.type) return gid + ", whose RoCE version cannot be read";
  return "";
}

const char* consumerOf(const std::string& variable) {
  if (startsWith(variable, "NVSHMEM_")) return "NVSHMEM";
  if (startsWith(variable, "UCX_")) return "UCX";
  return "NCCL";
}

}  // namespace

std::vector<ForcedIndex> forcedIndicesOf(const Environment& user) {
  std::vector<ForcedIndex> out;
  if (auto text = user.get("NCCL_IB_GID_INDEX")) {
    if (auto forced = ncclReading(*text)) out.push_back(*forced);
  }
  for (const auto& [variable, autoAllowed] : {std::pair<const char*, bool>{"NVSHMEM_IB_GID_INDEX", false},
                                              std::pair<const char*, bool>{"UCX_IB_GID_INDEX", true}}) {
    auto text = user.get(variable);
    if (!text) continue;
    std::string oddity;
    if (auto forced = numericReading(variable, *text, autoAllowed, &oddity)) {
      out.push_back(*forced);
    } else if (!oddity.empty()) {
      out.push_back(ForcedIndex{variable, *text, -1, oddity});
    }
  }
  return out;
}

std::vector<std::string> checkForcedIndices(const std::vector<ForcedIndex>& forced, const Selection& selection,
                                            const Machine& machine) {
  std::vector<std::string> warnings;
  for (const auto& f : forced) {
    if (!f.readingNote.empty()) warnings.push_back(f.readingNote);
    if (f.index < 0) continue;
    for (const auto& p : selection.ports) {
      if (!p.selected || p.linkLayer != LinkLayer::kEthernet || !p.gidIndex || *p.gidIndex == f.index) continue;
      const PortInfo* info = findPort(machine, p.device, p.port);
      if (info == nullptr) continue;
      for (const auto& entry : info->forced) {
        if (entry.entry.index != f.index) continue;
        std::string holds = whatItHolds(machine, entry);
        if (holds.empty()) continue;
        warnings.push_back(f.variable + "=" + f.text + " (set by the user) makes " + consumerOf(f.variable) + " use " +
                           holds + " on " + p.device + ":" + std::to_string(p.port) +
                           "; this pod's RoCE v2 GID there is index " + std::to_string(*p.gidIndex) + " (" +
                           p.gid->toAddressString() + ")");
      }
    }
  }
  return warnings;
}

}  // namespace nccl_roce::gid
