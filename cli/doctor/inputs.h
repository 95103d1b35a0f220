// Everything `nccl-roce doctor` reads, as seams: the resolver's machine view, the /dev and /proc roots, the
// locked-memory limit, the hwloc topology source, where libnccl is or where to look for it, and the environment.
// The CLI fills it with the real machine; tests with fake trees.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/env.h"
#include "gid/resolve.h"

namespace nccl_roce::doctor {

struct DoctorInputs {
  const gid::Resolution* resolution = nullptr;  // resolved with the same sources as `detect`
  const gid::SysfsReader* sysfs = nullptr;      // the same sysfs root, for what the resolver does not read
  const Environment* env = nullptr;             // the user's environment
  // False when the machine view is a snapshot or another sysfs tree: checks of this host's process, /dev and
  // /proc then skip unless their roots were given explicitly (they would describe the wrong machine).
  bool liveMachine = true;
  bool devRootGiven = false;
  bool procRootGiven = false;
  std::string devRoot = "/dev";
  std::string procRoot = "/proc";
  // RLIMIT_MEMLOCK soft limit in bytes; nullopt means unlimited.
  std::function<std::optional<uint64_t>()> memlockLimit;
  std::string hwlocXml;  // a topology file to read instead of this machine's (tests, bug reports)
  std::string hwlocLibrary = "libhwloc.so.15";
  std::string ncclLibrary;  // libnccl.so.2 to inspect; empty: search where vLLM would find it (nccl_search.h)
  // Where the loader looks last, after LD_LIBRARY_PATH (tests give their own, without this machine's NCCL).
  std::vector<std::string> systemLibraryDirs = {"/usr/local/cuda/lib", "/usr/local/cuda/lib64",
                                                "/usr/lib/x86_64-linux-gnu", "/usr/local/lib", "/usr/lib"};
  int pythonTimeoutMs = 10000;  // how long python3 may take to say where its NCCL wheel is
};

}  // namespace nccl_roce::doctor
