#include "gid/sysfs_formats.h"

#include <cctype>

#include "common/strings.h"

namespace nccl_roce::gid {

std::optional<NumberedState> parseNumberedState(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::optional<uint64_t> code = parseUnsigned(text.substr(0, colon));
  std::string_view name = trim(text.substr(colon + 1));
  if (!code || *code > 255 || name.empty()) return std::nullopt;
  return NumberedState{static_cast<int>(*code), std::string(name)};
}

std::optional<double> parseRateGbps(std::string_view text) {
  size_t unit = text.find(" Gb/sec");
  if (unit == std::string_view::npos || unit == 0) return std::nullopt;
  std::string_view number = text.substr(0, unit);
  size_t dot = number.find('.');
  std::optional<uint64_t> whole = parseUnsigned(number.substr(0, dot));
  if (!whole || *whole > 100000) return std::nullopt;
  double value = static_cast<double>(*whole);
  if (dot != std::string_view::npos) {
    std::string_view fraction = number.substr(dot + 1);
    if (fraction.empty() || fraction.size() > 6 || !parseUnsigned(fraction)) return std::nullopt;
    double scale = 0.1;
    for (char c : fraction) {
      value += (c - '0') * scale;
      scale /= 10;
    }
  }
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
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace nccl_roce::gid
