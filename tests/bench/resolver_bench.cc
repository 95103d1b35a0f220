// Resolving a busy node (tests/fixtures/busy_node.h), as the env plugin does once per process at NCCL init.
// Reported: wall time per resolution and the sysfs files opened for it, without libibverbs (sysfs alone) and with
// it (the deployment case: verbs values compared with sysfs up to the chosen entry).
#include <benchmark/benchmark.h>

#include <string>

#include "gid/resolve.h"
#include "tests/fixtures/busy_node.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

// The node, written once to a scratch directory that lives as long as the benchmark.
struct BenchNode {
  TempDir dir;
  BusyNode node{dir.path()};
};

BusyNode& busyNode() {
  static BenchNode bench;
  return bench.node;
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
  state.counters["files_per_gid_entry"] = static_cast<double>(files) / (BusyNode::kHcas * 256.0);
  if (index != std::to_string(BusyNode::kResolvedGidIndex))
    state.SkipWithError(("wrong GID index resolved: " + index).c_str());
}

void BM_ResolveBusyNode(benchmark::State& state) {
  resolveBusyNode(state, nullptr);
}

void BM_ResolveBusyNodeWithVerbs(benchmark::State& state) {
  gid::IbvFunctions table = busyNode().verbs.table(FakeVerbs::Query::kGidTable);
  resolveBusyNode(state, &table);
}

BENCHMARK(BM_ResolveBusyNode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResolveBusyNodeWithVerbs)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nccl_roce::testing

BENCHMARK_MAIN();
