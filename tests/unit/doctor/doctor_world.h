// A pod for `nccl-roce doctor` checks: a resolver world (fake sysfs tree, addresses, environment) plus the fake
// /dev and /proc roots, the memlock limit and the hwloc source the checks read. Defaults describe a healthy
// two-rail SR-IOV pod; each test breaks one thing.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/doctor/checks.h"
#include "tests/fixtures/resolver_world.h"
#include "tests/support/run_command.h"

namespace nccl_roce::testing {

class DoctorWorld : public ResolverWorld {
 public:
  // `rails` healthy rails; 0 for a pod a test builds from scratch.
  explicit DoctorWorld(int rails = 2) {
    for (int rail = 0; rail < rails; ++rail) addRail(rail);
    sys.write("class/net/eth0/mtu", "1500\n");
  }

  // mlx5_<rail>, a VF at PCI bus 0x1c + rail, on net<rail+1> with the pod's address 10.<200+rail>.0.42 at
  // GID 7 of an SR-IOV table (4/5 link-local), MTU 9000, and a uverbs node the pod may open.
  void addRail(int rail) {
    std::string dev = "mlx5_" + std::to_string(rail), netdev = "net" + std::to_string(rail + 1);
    std::string ip = "10." + std::to_string(200 + rail) + ".0.42";
    sys.netdev(netdev);
    address(netdev, ip + "/16");
    char pci[16];
    std::snprintf(pci, sizeof pci, "0000:%02x:00.0", 0x1c + rail);
    sys.device(dev).pci(pci, 0, /*vf=*/true);
    sys.device(dev).port(1).roce(400).tableLength(16).linkLocalGids(netdev, 4).ipv4Pair(6, ip, netdev);
    sys.write("class/net/" + netdev + "/mtu", "9000\n");
    uverbs(rail, dev, 0666);
  }

  // /dev/infiniband/uverbs<n> with `mode`, and the sysfs link saying which device it is.
  void uverbs(int n, const std::string& device, mode_t mode) {
    std::string node = "uverbs" + std::to_string(n);
    sys.write("class/infiniband_verbs/" + node + "/ibdev", device + "\n");
    std::string path = dir.writeFile("dev/infiniband/" + node, "");
    ::chmod(path.c_str(), mode);
  }

  // What `nccl-roce doctor --sysfs-root ... --dev-root ... --proc-root ...` reads, resolved now.
  doctor::DoctorInputs inputs() {
    resolution = resolve();
    reader.emplace(sys.root(), gid::realFileAccess());
    doctor::DoctorInputs in;
    in.resolution = &resolution;
    in.sysfs = &*reader;
    in.env = &env;
    in.liveMachine = live;
    in.devRootGiven = in.procRootGiven = true;
    in.devRoot = dir.join("dev");
    in.procRoot = dir.join("proc");
    in.memlockLimit = [this] { return memlock; };
    in.hwlocXml = hwlocXml;
    in.ncclLibrary = ncclLibrary;
    in.systemLibraryDirs = systemLibraryDirs;
    in.pythonTimeoutMs = pythonTimeoutMs;
    return in;
  }

  bool live = true;
  std::optional<uint64_t> memlock;  // unlimited
  std::string hwlocXml = sourcePath("tests/data/hwloc/one-switch.xml");
  std::string ncclLibrary = "/nonexistent/libnccl.so.2";  // "": searched for, as vLLM would find it
  // The pod's own system folders, empty unless a test fills them: this machine's NCCL is not the pod's.
  std::vector<std::string> systemLibraryDirs = {dir.join("usr/lib")};
  int pythonTimeoutMs = 10000;
  gid::Resolution resolution;
  std::optional<gid::SysfsReader> reader;
};

}  // namespace nccl_roce::testing
