#include "plugin/library_pin.h"

#include <dlfcn.h>

namespace nccl_roce::plugin {

namespace {
// Any address inside this library, to find its file by.
const char kInThisLibrary = 0;
}  // namespace

void keepThisLibraryLoaded() noexcept {
  Dl_info info;
  if (::dladdr(&kInThisLibrary, &info) != 0 && info.dli_fname != nullptr) {
    (void)::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);  // the handle is never closed
  }
}

}  // namespace nccl_roce::plugin
