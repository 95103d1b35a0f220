#include "gid/verbs.h"

#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "common/file.h"

namespace nccl_roce::gid {

namespace {

constexpr int kMaxGidTableLength = 4096;

// rdma-core keeps IBVERBS_1.0 compatibility versions of the old entry points beside the current ones; ask for
// the version we were compiled against (as NCCL does), falling back to the default for unversioned builds.
template <typename Fn>
bool bind(void* handle, const char* name, const char* version, Fn& slot) {
  void* symbol = ::dlvsym(handle, name, version);
  if (symbol == nullptr) symbol = ::dlsym(handle, name);
  slot = reinterpret_cast<Fn>(symbol);
  return slot != nullptr;
}

constexpr const char* kVerbs11 = "IBVERBS_1.1";
constexpr const char* kVerbs111 = "IBVERBS_1.11";  // rdma-core v31: GID entries with their types

std::optional<GidType> typeFromVerbs(uint32_t type) {
  switch (type) {
    case IBV_GID_TYPE_ROCE_V2:
      return GidType::kRoceV2;
    case IBV_GID_TYPE_IB:
    case IBV_GID_TYPE_ROCE_V1:
      return GidType::kRoceV1;
    default:
      return std::nullopt;
  }
}

void collectGidsFromTable(const IbvFunctions& ibv, struct ibv_context* context, VerbsDevice& device, int totalEntries) {
  std::vector<struct ibv_gid_entry> entries(static_cast<size_t>(std::max(totalEntries, 1)));
  ssize_t n = ibv.queryGidTable(context, entries.data(), entries.size(), 0, sizeof(struct ibv_gid_entry));
  if (n < 0) {
    for (auto& port : device.ports)
      port.gidError = std::string("ibv_query_gid_table failed: ") + errnoText(static_cast<int>(-n));
    return;
  }
  for (ssize_t i = 0; i < n && static_cast<size_t>(i) < entries.size(); ++i) {
    const auto& entry = entries[static_cast<size_t>(i)];
    GidValue value = GidValue::fromBytes(entry.gid.raw);
    if (value.isZero()) continue;
    for (auto& port : device.ports) {
      if (port.number == static_cast<int>(entry.port_num)) {
        port.gids.push_back({static_cast<int>(entry.gid_index), value, typeFromVerbs(entry.gid_type)});
      }
    }
  }
}

void collectGidsPerIndex(const IbvFunctions& ibv, struct ibv_context* context, VerbsPort& port) {
  for (int index = 0; index < std::min(port.gidTableLength, kMaxGidTableLength); ++index) {
    if (ibv.queryGidEx != nullptr) {
      struct ibv_gid_entry entry;
      std::memset(&entry, 0, sizeof(entry));
      int rc = ibv.queryGidEx(context, static_cast<uint32_t>(port.number), static_cast<uint32_t>(index), &entry, 0,
                              sizeof(entry));
      if (rc == ENODATA) continue;  // an empty entry
      if (rc != 0) {
        port.gidError = std::string("ibv_query_gid_ex failed: ") + errnoText(rc);
        return;
      }
      GidValue value = GidValue::fromBytes(entry.gid.raw);
      if (!value.isZero()) port.gids.push_back({index, value, typeFromVerbs(entry.gid_type)});
      continue;
    }
    union ibv_gid gid;
    std::memset(&gid, 0, sizeof(gid));
    if (ibv.queryGid(context, static_cast<uint8_t>(port.number), index, &gid) != 0) {
      port.gidError = std::string("ibv_query_gid failed: ") + errnoText(errno != 0 ? errno : EIO);
      return;
    }
    GidValue value = GidValue::fromBytes(gid.raw);
    if (!value.isZero()) port.gids.push_back({index, value, std::nullopt});
  }
}

VerbsDevice queryDevice(const IbvFunctions& ibv, struct ibv_device* handle) {
  VerbsDevice device;
  const char* name = ibv.getDeviceName(handle);
  device.name = name != nullptr ? name : "";
  struct ibv_context* context = ibv.openDevice(handle);
  if (context == nullptr) {
    device.openError = std::string("ibv_open_device failed: ") + errnoText(errno != 0 ? errno : EIO);
    return device;
  }
  device.opened = true;
  struct ibv_device_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  if (ibv.queryDevice(context, &attr) == 0) {
    int totalEntries = 0;
    for (int p = 1; p <= attr.phys_port_cnt; ++p) {
      struct ibv_port_attr portAttr;
      std::memset(&portAttr, 0, sizeof(portAttr));
      if (ibv.queryPort(context, static_cast<uint8_t>(p), &portAttr) != 0) continue;
      VerbsPort port;
      port.number = p;
      port.state = portAttr.state;
      port.linkLayer = portAttr.link_layer;
      port.gidTableLength = std::min(portAttr.gid_tbl_len, kMaxGidTableLength);
      totalEntries += port.gidTableLength;
      device.ports.push_back(port);
    }
    if (ibv.queryGidTable != nullptr) {
      collectGidsFromTable(ibv, context, device, totalEntries);
    } else {
      for (auto& port : device.ports) collectGidsPerIndex(ibv, context, port);
    }
    for (auto& port : device.ports) {
      std::sort(port.gids.begin(), port.gids.end(),
                [](const VerbsGid& a, const VerbsGid& b) { return a.index < b.index; });
    }
  } else {
    device.openError = "ibv_query_device failed";
  }
  ibv.closeDevice(context);
  return device;
}

}  // namespace

bool IbvFunctions::complete() const {
  return getDeviceList && freeDeviceList && getDeviceName && openDevice && closeDevice && queryDevice && queryPort &&
         queryGid;
}

const IbvFunctions* loadSystemVerbs(std::string* whyNot) {
  static std::once_flag once;
  static IbvFunctions table;
  static const IbvFunctions* loaded = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    // Kept open for the life of the process, as NCCL does with its own ibverbs handle.
    void* handle = ::dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      // NOLINTNEXTLINE(concurrency-mt-unsafe): glibc keeps dlerror's state per thread
      const char* error = ::dlerror();
      failure = std::string("libibverbs.so.1 not loaded: ") + (error ? error : "unknown error");
      return;
    }
    bool ok = bind(handle, "ibv_get_device_list", kVerbs11, table.getDeviceList) &&
              bind(handle, "ibv_free_device_list", kVerbs11, table.freeDeviceList) &&
              bind(handle, "ibv_get_device_name", kVerbs11, table.getDeviceName) &&
              bind(handle, "ibv_open_device", kVerbs11, table.openDevice) &&
              bind(handle, "ibv_close_device", kVerbs11, table.closeDevice) &&
              bind(handle, "ibv_query_device", kVerbs11, table.queryDevice) &&
              bind(handle, "ibv_query_port", kVerbs11, table.queryPort) &&
              bind(handle, "ibv_query_gid", kVerbs11, table.queryGid);
    if (!ok) {
      failure = "libibverbs.so.1 lacks a required symbol";
      return;
    }
    bind(handle, "_ibv_query_gid_table", kVerbs111, table.queryGidTable);
    bind(handle, "_ibv_query_gid_ex", kVerbs111, table.queryGidEx);
    loaded = &table;
  });
  if (loaded == nullptr && whyNot != nullptr) *whyNot = failure;
  return loaded;
}

StatusOr<std::vector<VerbsDevice>> queryVerbs(const IbvFunctions& ibv) {
  if (!ibv.complete()) return Status(StatusCode::kUnavailable, "incomplete ibverbs function table");
  int count = 0;
  errno = 0;
  struct ibv_device** list = ibv.getDeviceList(&count);
  if (list == nullptr) {
    return Status(StatusCode::kUnavailable,
                  std::string("ibv_get_device_list failed: ") + errnoText(errno != 0 ? errno : ENODEV));
  }
  std::vector<VerbsDevice> devices;
  for (int i = 0; i < count && list[i] != nullptr; ++i) devices.push_back(queryDevice(ibv, list[i]));
  ibv.freeDeviceList(list);
  return devices;
}

}  // namespace nccl_roce::gid
