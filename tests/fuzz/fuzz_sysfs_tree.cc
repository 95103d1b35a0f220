// Fuzz target: the resolver over generated machines. The input describes a sysfs tree — devices, ports and
// GID entries whose files hold fuzzed text or fail with a fuzzed error — served from memory the way a replayed
// snapshot is; the resolution and its JSON rendering must never crash, and must keep their invariants.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/env.h"
#include "gid/resolution_json.h"
#include "gid/resolve.h"
#include "gid/snapshot.h"

namespace {

using nccl_roce::gid::Snapshot;

const char* const kStates[] = {"4: ACTIVE", "1: DOWN", "5: ACTIVE_DEFER", "ACTIVE"};
const char* const kPhys[] = {"5: LinkUp", "3: Disabled", "2: Polling"};
const char* const kLayers[] = {"Ethernet", "InfiniBand", "Unknown"};
const char* const kRates[] = {"400 Gb/sec (4X NDR)", "25 Gb/sec (1X EDR)", "100 Gb/sec (4X EDR)"};
const char* const kTypes[] = {"RoCE v2", "IB/RoCE v1", "RoCE v3"};
const char* const kErrors[] = {"invalid argument", "permission denied", "I/O error", "not found", "too large"};

// A file's content: usually a realistic value, sometimes arbitrary bytes, sometimes an error.
void put(FuzzedDataProvider& in, Snapshot& s, const std::string& path, const char* const* realistic, size_t count) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      s.sysfs.files[path] = in.ConsumeRandomLengthString(64);
      break;
    case 1:
      s.sysfs.errors[path] = nccl_roce::gid::recordedErrorFromText(kErrors[in.ConsumeIntegralInRange<size_t>(0, 4)]);
      break;
    default:
      s.sysfs.files[path] = std::string(realistic[in.ConsumeIntegralInRange<size_t>(0, count - 1)]) + "\n";
  }
}

std::string gidText(FuzzedDataProvider& in) {
  char text[48];
  unsigned char b[16] = {0};
  int kind = in.ConsumeIntegralInRange<int>(0, 4);
  if (kind == 0 || kind == 4) {  // 10.0.0.x, or an IPv4 link-local 169.254.0.x
    b[10] = b[11] = 0xff;
    b[12] = kind == 0 ? 10 : 169;
    b[13] = kind == 0 ? 0 : 254;
    b[14] = 0;
    b[15] = in.ConsumeIntegral<uint8_t>() & 3;
  } else if (kind == 1) {
    b[0] = 0xfe;
    b[1] = 0x80;
  } else if (kind == 2) {
    for (auto& x : b) x = in.ConsumeIntegral<uint8_t>();
  }
  std::snprintf(text, sizeof(text), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x\n", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  Snapshot s;
  std::vector<std::string> netdevs{"net1", "net2", "eth0"};
  s.sysfs.directories["class/net"] = netdevs;
  std::vector<std::string> devices;
  int deviceCount = in.ConsumeIntegralInRange<int>(0, 6);
  for (int d = 0; d < deviceCount; ++d) {
    std::string name = in.ConsumeBool() ? "mlx5_" + std::to_string(d) : in.ConsumeRandomLengthString(12);
    if (name.empty() || name.find('/') != std::string::npos) continue;
    devices.push_back(name);
    std::string base = "class/infiniband/" + name;
    int ports = in.ConsumeIntegralInRange<int>(0, 3);
    std::vector<std::string> portNames;
    for (int p = 1; p <= ports; ++p) {
      std::string pb = base + "/ports/" + std::to_string(p);
      portNames.push_back(in.ConsumeBool() ? std::to_string(p) : in.ConsumeRandomLengthString(4));
      put(in, s, pb + "/state", kStates, 4);
      put(in, s, pb + "/phys_state", kPhys, 3);
      put(in, s, pb + "/link_layer", kLayers, 3);
      put(in, s, pb + "/rate", kRates, 3);
      int gids = in.ConsumeIntegralInRange<int>(0, 12);
      std::vector<std::string> indices;
      for (int g = 0; g < gids; ++g) {
        std::string i = std::to_string(g);
        indices.push_back(i);
        s.sysfs.files[pb + "/gids/" + i] = in.ConsumeBool() ? gidText(in) : in.ConsumeRandomLengthString(48);
        put(in, s, pb + "/gid_attrs/types/" + i, kTypes, 3);
        std::string netdev = netdevs[in.ConsumeIntegralInRange<size_t>(0, 2)] + "\n";
        const char* one[] = {netdev.c_str()};
        put(in, s, pb + "/gid_attrs/ndevs/" + i, one, 1);
      }
      s.sysfs.directories[pb + "/gids"] = indices;
    }
    s.sysfs.directories[base + "/ports"] = portNames;
  }
  s.sysfs.directories["class/infiniband"] = devices;
  if (in.ConsumeBool()) {
    std::vector<nccl_roce::gid::InterfaceAddress> addresses;
    for (int i = 0; i < 3; ++i) {
      bool linkLocal = in.ConsumeBool();
      std::string cidr = (linkLocal ? "169.254.0." : "10.0.0.") + std::to_string(i) + (linkLocal ? "/16" : "/24");
      auto a = nccl_roce::gid::parseCidr(netdevs[static_cast<size_t>(i)], cidr);
      if (a.isOk()) addresses.push_back(*a);
    }
    s.addresses = addresses;
  }
  nccl_roce::gid::RecordedFileAccess files(s.sysfs, "/fuzz");
  nccl_roce::gid::SysfsReader reader("/fuzz", files);
  nccl_roce::gid::FixedAddressSource source(s.addresses.value_or(std::vector<nccl_roce::gid::InterfaceAddress>{}));
  nccl_roce::gid::ResolverSources sources;
  sources.sysfs = &reader;
  if (s.addresses) sources.addresses = &source;
  nccl_roce::MapEnvironment user;
  nccl_roce::gid::Resolution r = nccl_roce::gid::resolve(sources, user);
  if (r.anySelected() == r.env.empty())
    __builtin_trap();  // a selection always renders NCCL_IB_HCA, none renders nothing
  (void)nccl_roce::gid::dumpJson(nccl_roce::gid::resolutionToJson(r));
  (void)nccl_roce::gid::resolutionToShell(r);
  return 0;
}
