// Resolving a busy node, as the env plugin does once per process at NCCL init:
// 8 HCAs x 2 ports (port 2 down); every active port's GID table fully populated (256 entries) by 64 pods
// sharing the HCAs through macvlan, each pod owning an IPv4 and an IPv6 pair (v1 + v2) per HCA; this pod sees
// one netdev per HCA. Reported: wall time per resolution and the sysfs files opened for it, without libibverbs
// (sysfs alone) and with it (the deployment case: verbs values compared with sysfs up to the chosen entry).
#include <benchmark/benchmark.h>

#include <string>

#include "gid/resolve.h"
#include "tests/fixtures/fake_sysfs.h"
#include "tests/fixtures/fake_verbs.h"
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
        auto& table = verbs.device("mlx5_" + std::to_string(h)).ports[1];
        table.tableLength = 256;
        table.gids[base] = {ipv4Gid(podIpv4(h, pod)), IBV_GID_TYPE_ROCE_V1};
        table.gids[base + 1] = {ipv4Gid(podIpv4(h, pod)), IBV_GID_TYPE_ROCE_V2};
        table.gids[base + 2] = {ipv6Gid(podIpv6(h, pod)), IBV_GID_TYPE_ROCE_V1};
        table.gids[base + 3] = {ipv6Gid(podIpv6(h, pod)), IBV_GID_TYPE_ROCE_V2};
      }
      device.port(2).roce(400).state("1: DOWN").physState("3: Disabled").tableLength(256);
      verbs.device("mlx5_" + std::to_string(h)).ports[2].state = IBV_PORT_DOWN;
    }
  }
  TempDir dir;
  FakeSysfs sys;
  FakeVerbs verbs;
  std::vector<gid::InterfaceAddress> addresses;
};

BusyNode& busyNode() {
  static BusyNode node;
  return node;
}

void resolveBusyNode(benchmark::State& state, const gid::IbvFunctions* verbs) {
  BusyNode& node = busyNode();
  gid::FixedAddressSource addresses(node.addresses);
  MapEnvironment user;
  size_t files = 0;
  std::string index;
  for (auto _ : state) {
    gid::SysfsReader reader(node.sys.root());
    gid::ResolverSources sources;
    sources.sysfs = &reader;
    sources.addresses = &addresses;
    sources.verbs = verbs;
    gid::Resolution r = gid::resolve(sources, user);
    benchmark::DoNotOptimize(r);
    files = r.filesRead;
    index = r.resolvedValue("NCCL_IB_GID_INDEX").value_or("none");
    if (!r.warnings.empty()) state.SkipWithError(("unexpected warning: " + r.warnings.front()).c_str());
  }
  state.counters["files_read"] = static_cast<double>(files);
  state.counters["files_per_gid_entry"] = static_cast<double>(files) / (kHcas * 256.0);
  if (index != std::to_string(kThisPod * 4 + 1)) state.SkipWithError(("wrong GID index resolved: " + index).c_str());
}

void BM_ResolveBusyNode(benchmark::State& state) { resolveBusyNode(state, nullptr); }

void BM_ResolveBusyNodeWithVerbs(benchmark::State& state) {
  gid::IbvFunctions table = busyNode().verbs.table(FakeVerbs::Query::kGidTable);
  resolveBusyNode(state, &table);
}

BENCHMARK(BM_ResolveBusyNode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResolveBusyNodeWithVerbs)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nccl_roce::testing

BENCHMARK_MAIN();
