#include "fleet/curl_library.h"

#include <dlfcn.h>

namespace nccl_roce::fleet {

namespace {

template <typename Fn>
bool bind(void* lib, const char* name, Fn& slot) {
  slot = reinterpret_cast<Fn>(::dlsym(lib, name));
  return slot != nullptr;
}

}  // namespace

StatusOr<CurlFunctions> openCurlLibrary(const std::string& soname) {
  const char* install = "; install the libcurl4 package (apt-get install libcurl4) for --prometheus";
  void* lib = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): glibc keeps dlerror's state per thread
    const char* error = ::dlerror();
    return Status(StatusCode::kUnavailable,
                  "cannot load libcurl (" + std::string(error ? error : soname) + ")" + install);
  }
  CurlFunctions f;
  bool ok = bind(lib, "curl_global_init", f.globalInit) && bind(lib, "curl_easy_init", f.easyInit) &&
            bind(lib, "curl_easy_cleanup", f.easyCleanup) && bind(lib, "curl_easy_setopt", f.easySetopt) &&
            bind(lib, "curl_easy_perform", f.easyPerform) && bind(lib, "curl_easy_getinfo", f.easyGetinfo) &&
            bind(lib, "curl_easy_strerror", f.easyStrerror) && bind(lib, "curl_easy_escape", f.easyEscape) &&
            bind(lib, "curl_free", f.free) && bind(lib, "curl_slist_append", f.slistAppend) &&
            bind(lib, "curl_slist_free_all", f.slistFreeAll);
  if (!ok) {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): glibc keeps dlerror's state per thread
    const char* error = ::dlerror();
    return Status(StatusCode::kUnavailable, soname + " is not a usable libcurl (" +
                                                std::string(error ? error : "a function is missing") + ")" + install);
  }
  return f;
}

StatusOr<const CurlFunctions*> systemCurl() {
  // A function-local static: loaded at the first query, by one thread, whatever the number of callers.
  static const StatusOr<CurlFunctions> loaded = [] {
    StatusOr<CurlFunctions> f = openCurlLibrary("libcurl.so.4");
    if (f.isOk() && f->globalInit(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      return StatusOr<CurlFunctions>(Status(StatusCode::kUnavailable, "libcurl.so.4: curl_global_init failed"));
    }
    return f;
  }();
  if (!loaded.isOk()) return loaded.status();
  return &loaded.value();
}

}  // namespace nccl_roce::fleet
