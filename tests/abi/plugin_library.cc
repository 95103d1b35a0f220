#include "tests/abi/plugin_library.h"

#include <dlfcn.h>

#include <filesystem>

namespace nccl_roce::testing {

std::string PluginLibrary::builtPath() {
  return NCCL_ROCE_PLUGIN_PATH;
}

PluginLibrary::PluginLibrary(const std::string& path) {
  // RTLD_NODELETE: the plugin keeps process-wide singletons alive for the life of the process (NCCL may read
  // variables from exit handlers); unmapping them would turn every one into a "definite leak" under valgrind,
  // hiding real ones. NCCL closes the tuner and profiler after their last communicator, and the plugin pins
  // itself when it builds its process context (plugin/library_pin.h): this only pins it from the start.
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
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
