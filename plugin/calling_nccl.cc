#include "plugin/calling_nccl.h"

#include <dlfcn.h>

namespace nccl_roce::plugin {

int callingNcclVersion(ncclDebugLogger_t logger) noexcept {
  if (logger == nullptr) return 0;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(logger), &info) == 0 || info.dli_fname == nullptr) return 0;
  // Already loaded (NCCL is running): RTLD_NOLOAD opens nothing new, only takes a reference, given back below.
  void* nccl = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (nccl == nullptr) return 0;
  using GetVersion = int (*)(int*);
  auto getVersion = reinterpret_cast<GetVersion>(::dlsym(nccl, "ncclGetVersion"));
  int version = 0;
  if (getVersion == nullptr || getVersion(&version) != 0 || version < 0) version = 0;
  ::dlclose(nccl);
  return version;
}

tuner::SelectionRule selectionRuleOf(int version) noexcept {
  return version > 0 && version < 23100 ? tuner::SelectionRule::kFirstSmallestAvailable
                                        : tuner::SelectionRule::kLastPlainMinimum;
}

}  // namespace nccl_roce::plugin
