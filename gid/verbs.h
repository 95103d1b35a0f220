// libibverbs as a second source of GID values (the authority, as NCCL itself queries GIDs through verbs) and
// as the "can this pod open the device at all" check. Never linked: loadSystemVerbs() dlopens
// libibverbs.so.1 once per process; tests substitute an IbvFunctions table of their own.
#pragma once

#include <infiniband/verbs.h>

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "gid/machine.h"

namespace nccl_roce::gid {

// The subset of libibverbs we call. Optional entries (rdma-core >= v31) may be null.
struct IbvFunctions {
  struct ibv_device** (*getDeviceList)(int* count) = nullptr;
  void (*freeDeviceList)(struct ibv_device** list) = nullptr;
  const char* (*getDeviceName)(struct ibv_device* device) = nullptr;
  struct ibv_context* (*openDevice)(struct ibv_device* device) = nullptr;
  int (*closeDevice)(struct ibv_context* context) = nullptr;
  int (*queryDevice)(struct ibv_context* context, struct ibv_device_attr* attr) = nullptr;
  // The exported ibv_query_port fills the legacy prefix of ibv_port_attr; callers zero the rest.
  int (*queryPort)(struct ibv_context* context, uint8_t port, struct ibv_port_attr* attr) = nullptr;
  int (*queryGid)(struct ibv_context* context, uint8_t port, int index, union ibv_gid* gid) = nullptr;
  // Optional: _ibv_query_gid_table (IBVERBS_1.11), the whole table with types in one call.
  ssize_t (*queryGidTable)(struct ibv_context* context, struct ibv_gid_entry* entries, size_t maxEntries,
                           uint32_t flags, size_t entrySize) = nullptr;
  // Optional: _ibv_query_gid_ex (IBVERBS_1.11), one entry with its type.
  int (*queryGidEx)(struct ibv_context* context, uint32_t port, uint32_t index, struct ibv_gid_entry* entry,
                    uint32_t flags, size_t entrySize) = nullptr;

  bool complete() const;  // every required entry present
};

// The process-wide table from dlopen("libibverbs.so.1"), loaded once (thread-safe); nullptr with the
// reason in *whyNot when the library or a required symbol is missing.
const IbvFunctions* loadSystemVerbs(std::string* whyNot);

struct VerbsGid {
  int index = 0;
  GidValue value;
  std::optional<GidType> type;  // from the table/ex queries; nullopt with plain ibv_query_gid
};

struct VerbsPort {
  int number = 0;
  int state = 0;      // enum ibv_port_state
  int linkLayer = 0;  // IBV_LINK_LAYER_*
  int gidTableLength = 0;
  std::vector<VerbsGid> gids;  // non-zero entries, ascending index
  std::string gidError;        // non-empty: the GID table could not be read, so `gids` says nothing
};

struct VerbsDevice {
  std::string name;
  bool opened = false;
  std::string openError;  // why ibv_open_device failed: the pod cannot use this device
  std::vector<VerbsPort> ports;
};

// Queries every device, port and GID. Per-device failures are recorded, never fatal.
StatusOr<std::vector<VerbsDevice>> queryVerbs(const IbvFunctions& ibv);

}  // namespace nccl_roce::gid
