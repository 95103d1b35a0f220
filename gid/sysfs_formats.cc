#include "gid/sysfs_formats.h"

#include <cctype>
#include <charconv>

#include "common/strings.h"

namespace nccl_roce::gid {

namespace {

template <typename State>
std::optional<NumberedState<State>> parseNumbered(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::optional<uint64_t> code = parseUnsigned(text.substr(0, colon));
  std::string_view name = trim(text.substr(colon + 1));
  if (!code || *code > 255 || name.empty()) return std::nullopt;
  return NumberedState<State>{static_cast<State>(*code), std::string(name)};
}

}  // namespace

std::optional<PortStateReading> parsePortState(std::string_view text) {
  return parseNumbered<PortState>(text);
}

std::optional<PhysStateReading> parsePhysState(std::string_view text) {
  return parseNumbered<PhysState>(text);
}

std::optional<double> parseRateGbps(std::string_view text) {
  size_t unit = text.find(" Gb/sec");
  if (unit == std::string_view::npos || unit == 0) return std::nullopt;
  std::string_view number = text.substr(0, unit);
  if (!std::isdigit(static_cast<unsigned char>(number.front())) || number.size() > 16) return std::nullopt;
  double value = 0;
  // from_chars: locale-independent, and it must consume the whole number.
  auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value, std::chars_format::fixed);
  if (error != std::errc() || end != number.data() + number.size()) return std::nullopt;
  return value;
}

LinkLayer parseLinkLayer(std::string_view text) {
  if (text == "InfiniBand") return LinkLayer::kInfiniBand;
  if (text == "Ethernet") return LinkLayer::kEthernet;
  return LinkLayer::kUnknown;
}

std::optional<GidType> parseGidType(std::string_view text) {
  if (text == "RoCE v2") return GidType::kRoceV2;
  if (text == "IB/RoCE v1" || text == "RoCE v1") return GidType::kRoceV1;
  return std::nullopt;
}

const char* portStateName(PortState state) {
  static const char* const kNames[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
  int code = static_cast<int>(state);
  return code >= 0 && code <= 5 ? kNames[code] : "UNKNOWN";
}

bool isPciAddress(std::string_view text) {
  // dddd:bb:dd.f
  if (text.size() != 12) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (i == 4 || i == 7) {
      if (c != ':') return false;
    } else if (i == 10) {
      if (c != '.') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

bool isListableDeviceName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace nccl_roce::gid
