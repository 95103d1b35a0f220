// GPU <-> NIC PCIe distance through hwloc, dlopen'd (libhwloc.so.15, the hwloc 2.x ABI this is compiled
// against): skipped with the reason when hwloc is absent. Distances use nvidia-smi's and NCCL's words:
// PIX (one PCIe switch), PXB (several switches), PHB (the CPU's host bridge), NODE (same NUMA node, different
// host bridges), SYS (across the CPU interconnect).
#include "cli/doctor/affinity.h"

#include <dlfcn.h>
#include <hwloc.h>

#include <map>
#include <mutex>

#include "cli/doctor/checks.h"
#include "common/log.h"

namespace nccl_roce::doctor {

namespace {

struct HwlocApi {
  unsigned (*getApiVersion)() = nullptr;
  int (*topologyInit)(hwloc_topology_t*) = nullptr;
  int (*setXml)(hwloc_topology_t, const char*) = nullptr;
  int (*setIoTypesFilter)(hwloc_topology_t, enum hwloc_type_filter_e) = nullptr;
  int (*load)(hwloc_topology_t) = nullptr;
  void (*destroy)(hwloc_topology_t) = nullptr;
  unsigned (*nbObjsByDepth)(hwloc_topology_t, int) = nullptr;
  hwloc_obj_t (*objByDepth)(hwloc_topology_t, int, unsigned) = nullptr;
};

template <typename Fn>
bool bind(void* lib, const char* name, Fn& slot) {
  slot = reinterpret_cast<Fn>(::dlsym(lib, name));
  return slot != nullptr;
}

// Loaded once per library name and kept (hwloc is not unloaded).
const HwlocApi* loadHwloc(const std::string& library, std::string* whyNot) {
  static std::mutex mutex;
  static std::map<std::string, HwlocApi> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(library);
  if (it != loaded.end()) return &it->second;
  void* lib = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): glibc keeps dlerror's state per thread
    const char* e = ::dlerror();
    *whyNot = "hwloc not available (" + std::string(e ? e : library) + ")";
    return nullptr;
  }
  HwlocApi api;
  bool ok = bind(lib, "hwloc_get_api_version", api.getApiVersion) &&
            bind(lib, "hwloc_topology_init", api.topologyInit) && bind(lib, "hwloc_topology_set_xml", api.setXml) &&
            bind(lib, "hwloc_topology_set_io_types_filter", api.setIoTypesFilter) &&
            bind(lib, "hwloc_topology_load", api.load) && bind(lib, "hwloc_topology_destroy", api.destroy) &&
            bind(lib, "hwloc_get_nbobjs_by_depth", api.nbObjsByDepth) &&
            bind(lib, "hwloc_get_obj_by_depth", api.objByDepth);
  if (!ok) {
    *whyNot = library + " lacks a hwloc 2 function";
    return nullptr;
  }
  if ((api.getApiVersion() >> 16) != (HWLOC_API_VERSION >> 16)) {
    *whyNot = format("%s is hwloc API 0x%x, not 2.x", library.c_str(), api.getApiVersion());
    return nullptr;
  }
  return &loaded.emplace(library, api).first->second;
}

bool isHostBridge(hwloc_obj_t o) {
  return o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

hwloc_obj_t commonAncestor(hwloc_obj_t a, hwloc_obj_t b) {
  for (hwloc_obj_t x = a; x != nullptr; x = x->parent) {
    for (hwloc_obj_t y = b; y != nullptr; y = y->parent) {
      if (x == y) return x;
    }
  }
  return nullptr;
}

int bridgesBelow(hwloc_obj_t device, hwloc_obj_t ancestor) {
  int n = 0;
  for (hwloc_obj_t x = device->parent; x != nullptr && x != ancestor; x = x->parent) n += x->type == HWLOC_OBJ_BRIDGE;
  return n;
}

hwloc_obj_t numaOf(hwloc_obj_t o) {
  // I/O objects hang below the normal object (Package, Group, Machine) whose nodeset is their locality.
  while (o != nullptr && o->type != HWLOC_OBJ_PACKAGE && o->type != HWLOC_OBJ_GROUP && o->type != HWLOC_OBJ_MACHINE) {
    o = o->parent;
  }
  return o;
}

// The selected NICs by PCI address ("0000:1c:00.0" -> mlx5_0): the ones whose distance to the GPUs matters.
std::map<std::string, std::string> selectedNicsByPci(const DoctorInputs& in) {
  std::map<std::string, std::string> nicByPci;
  if (in.resolution->machine) {
    for (const auto& device : in.resolution->machine->devices) {
      bool selected = false;
      for (const auto& p : in.resolution->ports) selected |= p.device == device.name && p.selected;
      if (selected && device.pciAddress) nicByPci[*device.pciAddress] = device.name;
    }
  }
  return nicByPci;
}

// This machine's topology, or the one in `xml` when given, with every I/O object kept (bridges too). False with
// *whyNot when hwloc cannot load it; otherwise the caller destroys *topology.
bool loadTopology(const HwlocApi& hw, const std::string& xml, hwloc_topology_t* topology, std::string* whyNot) {
  if (hw.topologyInit(topology) != 0) {
    *whyNot = "hwloc could not start";
    return false;
  }
  if (!xml.empty() && hw.setXml(*topology, xml.c_str()) != 0) {
    hw.destroy(*topology);
    *whyNot = "hwloc could not read " + xml;
    return false;
  }
  hw.setIoTypesFilter(*topology, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hw.load(*topology) != 0) {
    hw.destroy(*topology);
    *whyNot = "hwloc could not load the topology";
    return false;
  }
  return true;
}

std::string pciName(hwloc_obj_t o) {
  const auto& pci = o->attr->pcidev;
  return format("%04x:%02x:%02x.%x", pci.domain, pci.bus, pci.dev, pci.func);
}

struct PciDevices {
  std::vector<hwloc_obj_t> gpus;            // NVIDIA 3D and VGA controllers
  std::map<std::string, hwloc_obj_t> nics;  // the selected NICs, by name
};

PciDevices findPciDevices(const HwlocApi& hw, hwloc_topology_t topology,
                          const std::map<std::string, std::string>& nicByPci) {
  PciDevices found;
  unsigned count = hw.nbObjsByDepth(topology, HWLOC_TYPE_DEPTH_PCI_DEVICE);
  for (unsigned i = 0; i < count; ++i) {
    hwloc_obj_t o = hw.objByDepth(topology, HWLOC_TYPE_DEPTH_PCI_DEVICE, i);
    const auto& pci = o->attr->pcidev;
    if (pci.vendor_id == 0x10de && (pci.class_id == 0x0302 || pci.class_id == 0x0300)) found.gpus.push_back(o);
    auto nic = nicByPci.find(pciName(o));
    if (nic != nicByPci.end()) found.nics[nic->second] = o;
  }
  return found;
}

// Each GPU's distance to each selected NIC; a warning names the GPUs with no NIC on their PCIe switch.
CheckResult distancesResult(const char* id, const char* title, const PciDevices& found) {
  std::string detail, far;
  for (hwloc_obj_t gpu : found.gpus) {
    std::string name = "GPU " + pciName(gpu);
    std::string row;
    bool close = false;
    for (const auto& [nic, obj] : found.nics) {
      std::string d = pcieDistance(gpu, obj);
      close |= d == "PIX" || d == "PXB";
      row += (row.empty() ? "" : " ") + nic + "=" + d;
    }
    detail += (detail.empty() ? "" : "; ") + name + ": " + row;
    if (!close) far += (far.empty() ? "" : ", ") + name;
  }
  return far.empty() ? CheckResult::pass(id, title, detail)
                     : CheckResult::warn(id, title, detail + " (no NIC on the PCIe switch of " + far + ")",
                                         "GPUDirect RDMA from those GPUs crosses the host bridge or CPU interconnect; "
                                         "give the pod the NICs next to its GPUs (same PCIe switch)");
}

}  // namespace

std::string pcieDistance(hwloc_obj_t a, hwloc_obj_t b) {
  hwloc_obj_t lca = commonAncestor(a, b);
  if (lca == nullptr) return "SYS";
  if (lca->type == HWLOC_OBJ_BRIDGE && !isHostBridge(lca)) {
    return bridgesBelow(a, lca) <= 1 && bridgesBelow(b, lca) <= 1 ? "PIX" : "PXB";
  }
  if (isHostBridge(lca)) return "PHB";
  hwloc_obj_t na = numaOf(a), nb = numaOf(b);
  if (na != nullptr && na == nb && na->type != HWLOC_OBJ_MACHINE) return "NODE";
  return "SYS";
}

CheckResult checkAffinity(const DoctorInputs& in) {
  const char* id = "gpu-nic-affinity";
  const char* title = "GPU to NIC PCIe distance";
  std::map<std::string, std::string> nicByPci = selectedNicsByPci(in);
  if (nicByPci.empty()) return CheckResult::skip(id, title, "no selected NIC with a known PCI address");
  if (!in.liveMachine && in.hwlocXml.empty())
    return CheckResult::skip(id, title, "not this machine (give --hwloc-xml)");
  std::string whyNot;
  const HwlocApi* hw = loadHwloc(in.hwlocLibrary, &whyNot);
  if (hw == nullptr) return CheckResult::skip(id, title, whyNot);
  hwloc_topology_t topology = nullptr;
  if (!loadTopology(*hw, in.hwlocXml, &topology, &whyNot)) return CheckResult::skip(id, title, whyNot);
  PciDevices found = findPciDevices(*hw, topology, nicByPci);
  CheckResult result;
  if (found.gpus.empty() || found.nics.empty()) {
    const char* why =
        found.gpus.empty() ? "no NVIDIA GPU in the PCI topology" : "the selected NICs are not in hwloc's PCI topology";
    result = CheckResult::skip(id, title, why);
  } else {
    result = distancesResult(id, title, found);
  }
  hw->destroy(topology);
  return result;
}

}  // namespace nccl_roce::doctor
