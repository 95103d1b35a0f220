// Resolving a busy node, as the env plugin does once per process at NCCL init:
// 8 HCAs x 2 ports (port 2 down); every active port's GID table fully populated (256 entries) by 64 pods
// sharing the HCAs through macvlan, each pod owning an IPv4 and an IPv6 pair (v1 + v2) per HCA; this pod sees
// one netdev per HCA. Reported: wall time per resolution and the sysfs files opened for it.
#include <benchmark/benchmark.h>

#include <string>

#include "gid/resolve.h"
#include "tests/fixtures/fake_sysfs.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

constexpr int kHcas = 8;
constexpr int kPods = 64;
constexpr int kThisPod = 37;

std::string podIpv4(int hca, int pod) { return "10." + std::to_string(100 + hca) + ".0." + std::to_string(pod + 1); }
std::string podIpv6(int hca, int pod) { return "fd00:" + std::to_string(hca) + "::" + std::to_string(pod + 1); }

struct BusyNode {
  BusyNode() : sys(dir.path()) {
    for (int h = 0; h < kHcas; ++h) {
      std::string net = "net" + std::to_string(h + 1);
      sys.netdev(net);
      for (auto cidr : {podIpv4(h, kThisPod) + "/16", podIpv6(h, kThisPod) + "/64"}) {
        addresses.push_back(*gid::parseCidr(net, cidr));
      }
      auto device = sys.device("mlx5_" + std::to_string(h));
      device.pci("0000:" + std::to_string(17 + h) + ":00.0", h / 4);
      auto port = device.port(1).roce(400);
      for (int pod = 0; pod < kPods; ++pod) {
        int base = pod * 4;
        // Every pod's netdev is called net<h+1> inside its own namespace.
        port.ipv4Pair(base, podIpv4(h, pod), net);
        port.gid(base + 2, ipv6Gid(podIpv6(h, pod)), "IB/RoCE v1", net);
        port.gid(base + 3, ipv6Gid(podIpv6(h, pod)), "RoCE v2", net);
      }
      device.port(2).roce(400).state("1: DOWN").physState("3: Disabled").tableLength(256);
    }
  }
  TempDir dir;
  FakeSysfs sys;
  std::vector<gid::InterfaceAddress> addresses;
};

void BM_ResolveBusyNode(benchmark::State& state) {
  static BusyNode node;
  gid::FixedAddressSource addresses(node.addresses);
  MapEnvironment user;
  size_t files = 0;
  std::string hca;
  for (auto _ : state) {
    gid::SysfsReader reader(node.sys.root());
    gid::ResolverSources sources;
    sources.sysfs = &reader;
    sources.addresses = &addresses;
    gid::Resolution r = gid::resolve(sources, user);
    benchmark::DoNotOptimize(r);
    files = r.filesRead;
    hca = r.resolvedValue("NCCL_IB_GID_INDEX").value_or("none");
  }
  state.counters["files_read"] = static_cast<double>(files);
  state.counters["files_per_gid_entry"] = static_cast<double>(files) / (kHcas * 256.0);
  if (hca != std::to_string(kThisPod * 4 + 1)) state.SkipWithError(("wrong GID index resolved: " + hca).c_str());
}
BENCHMARK(BM_ResolveBusyNode)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nccl_roce::testing

BENCHMARK_MAIN();
