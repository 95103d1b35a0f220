// Parsers for the exact formats the kernel's drivers/infiniband/core/sysfs.c writes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gid/machine.h"

namespace nccl_roce::gid {

// "4: ACTIVE", "1: DOWN": a decimal code (0..255), ": ", a name.
std::optional<PortStateReading> parsePortState(std::string_view text);
// "5: LinkUp", "3: Disabled", "7: Phy Test": the same shape.
std::optional<PhysStateReading> parsePhysState(std::string_view text);
// "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)", "400 Gb/sec (4X NDR)": the leading number in Gb/s.
std::optional<double> parseRateGbps(std::string_view text);
// "InfiniBand" / "Ethernet"; anything else is Unknown.
LinkLayer parseLinkLayer(std::string_view text);
// "RoCE v2" / "IB/RoCE v1" (and "RoCE v1", which NCCL also accepts); nullopt for anything else.
std::optional<GidType> parseGidType(std::string_view text);
// A PCI function address "0000:17:00.0" (domain:bus:device.function, hex).
bool isPciAddress(std::string_view text);
// Names NCCL_IB_HCA, NVSHMEM_HCA_LIST and UCX_NET_DEVICES can carry: [A-Za-z0-9_.-], 1..64 bytes.
bool isListableDeviceName(std::string_view name);

// The kernel's name of a port state, as `state` prints it (kActive -> "ACTIVE"); "UNKNOWN" outside 0..5.
const char* portStateName(PortState state);

}  // namespace nccl_roce::gid
