// The built libnccl-roce.so, opened the way NCCL opens plugins (dlopen RTLD_NOW|RTLD_LOCAL, dlsym per table).
// A test can open several independent copies of it: each copy is a separate file, so a separate instance.
#pragma once

#include <string>

namespace nccl_roce::testing {

class PluginLibrary {
 public:
  // Opens the library at `path` (default: the build tree's libnccl-roce.so).
  explicit PluginLibrary(const std::string& path = builtPath());
  // Opens a private copy of the built library (its own globals, as in another process).
  static PluginLibrary copy(const std::string& directory, const std::string& name);
  ~PluginLibrary();
  PluginLibrary(PluginLibrary&& other) noexcept;
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  template <typename T>
  const T* table(const char* symbol) const {
    return static_cast<const T*>(lookup(symbol));
  }

  static std::string builtPath();

 private:
  const void* lookup(const char* symbol) const;
  void* handle_ = nullptr;
  std::string error_;
};

}  // namespace nccl_roce::testing
