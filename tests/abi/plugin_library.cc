#include "tests/abi/plugin_library.h"

#include <dlfcn.h>

#include <filesystem>

namespace nccl_roce::testing {

std::string PluginLibrary::builtPath() { return NCCL_ROCE_PLUGIN_PATH; }

PluginLibrary::PluginLibrary(const std::string& path) {
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* e = ::dlerror();
    error_ = e ? e : "dlopen failed";
  }
}

PluginLibrary PluginLibrary::copy(const std::string& directory, const std::string& name) {
  std::string target = directory + "/" + name;
  std::filesystem::copy_file(builtPath(), target, std::filesystem::copy_options::overwrite_existing);
  return PluginLibrary(target);
}

PluginLibrary::~PluginLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

PluginLibrary::PluginLibrary(PluginLibrary&& other) noexcept : handle_(other.handle_), error_(std::move(other.error_)) {
  other.handle_ = nullptr;
}

const void* PluginLibrary::lookup(const char* symbol) const {
  return handle_ ? ::dlsym(handle_, symbol) : nullptr;
}

}  // namespace nccl_roce::testing
