#include "gid/qualification.h"

#include <algorithm>

namespace nccl_roce::gid {

std::optional<GidRejection> gidRejection(const Machine& machine, const GidEntry& entry) {
  if (entry.value.isZero()) return GidRejection::kEmpty;
  if (entry.skipped == SkipReason::kIpv6LinkLocal || entry.value.isIpv6LinkLocal()) return GidRejection::kIpv6LinkLocal;
  if (entry.skipped == SkipReason::kAddressNotHere) return GidRejection::kAddressNotHere;
  if (!entry.netdev) return GidRejection::kNetdevUnreadable;
  if (machine.visibleNetdevs.count(*entry.netdev) == 0) return GidRejection::kNetdevElsewhere;
  if (!entry.type) return GidRejection::kTypeUnreadable;
  if (*entry.type != GidType::kRoceV2) return GidRejection::kNotRoceV2;
  if (machine.addresses) {
    auto addresses = machine.addressesOf(*entry.netdev);
    if (std::find(addresses.begin(), addresses.end(), entry.value) == addresses.end()) {
      return GidRejection::kAddressNotOnNetdev;
    }
  }
  return std::nullopt;
}

}  // namespace nccl_roce::gid
