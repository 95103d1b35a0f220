// Which libnccl this environment loads and which of our plugins it will pick, following NCCL's own lookup:
// NCCL_<T>_PLUGIN as given, else libnccl-<t>-<value>.so; unset means libnccl-<t>.so; "none" disables.
#include <dlfcn.h>
#include <unistd.h>

#include "cli/doctor/checks.h"
#include "common/log.h"
#include "common/strings.h"
#include "plugin/nccl/net_v6.h"

namespace nccl_roce::doctor {

namespace {

std::vector<std::string> searchDirs(const Environment& env) {
  std::vector<std::string> dirs;
  if (auto path = env.get("LD_LIBRARY_PATH")) {
    for (std::string_view d : split(*path, ':')) {
      if (!d.empty()) dirs.emplace_back(d);
    }
  }
  for (const char* d : {"/usr/local/cuda/lib", "/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/local/lib",
                        "/usr/lib"}) {
    dirs.emplace_back(d);
  }
  return dirs;
}

std::string find(const std::string& name, const Environment& env) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), R_OK) == 0 ? name : "";
  for (const auto& dir : searchDirs(env)) {
    std::string path = dir + "/" + name;
    if (::access(path.c_str(), R_OK) == 0) return path;
  }
  return "";
}

// Libraries stay loaded for the life of the CLI: a plugin linked with a static C++ runtime (ours is)
// allocates its exception emergency pool when loaded and never frees it, so each unload leaks ~70 KiB.
constexpr int kOpenFlags = RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE;

// The name inside a plugin library's net table ("nccl-roce" for ours), or "" if it has none.
std::string pluginName(const std::string& path) {
  void* lib = ::dlopen(path.c_str(), kOpenFlags);
  if (lib == nullptr) return "";
  std::string name;
  for (const char* symbol : {"ncclNetPlugin_v6", "ncclTunerPlugin_v2", "ncclEnvPlugin_v1"}) {
    // Every table of every version starts with `const char* name`.
    auto* table = static_cast<const ncclNet_v6_t*>(::dlsym(lib, symbol));
    if (table != nullptr && table->name != nullptr) {
      name = table->name;
      break;
    }
  }
  ::dlclose(lib);
  return name;
}

int ncclVersion(const std::string& path) {
  void* lib = ::dlopen(path.c_str(), kOpenFlags);
  if (lib == nullptr) return 0;
  using GetVersion = int (*)(int*);
  auto get = reinterpret_cast<GetVersion>(::dlsym(lib, "ncclGetVersion"));
  int version = 0;
  if (get == nullptr || get(&version) != 0) version = 0;
  ::dlclose(lib);
  return version;
}

}  // namespace

CheckResult checkNcclLibrary(const DoctorInputs& in) {
  const char* id = "nccl-library";
  const char* title = "NCCL and the plugins it will load";
  const Environment& env = *in.env;
  std::string nccl = in.ncclLibrary.empty() ? find("libnccl.so.2", env) : find(in.ncclLibrary, env);
  // One short line: what was found, then the variables by what they make NCCL do; each fact once.
  std::vector<std::string> parts, unset, warnings, failures;
  int version = nccl.empty() ? 0 : ncclVersion(nccl);
  if (nccl.empty()) {
    parts.push_back(in.ncclLibrary.empty() ? "libnccl.so.2 not found on LD_LIBRARY_PATH or in /usr/local/cuda/lib, /usr/lib"
                                           : in.ncclLibrary + " not found");
    warnings.push_back(parts.back());
  } else {
    parts.push_back("NCCL " + (version > 0 ? format("%d.%d.%d", version / 10000, version / 100 % 100, version % 100)
                                           : std::string("of unknown version")) + " at " + nccl);
  }
  for (const char* kind : {"net", "tuner", "env"}) {
    std::string variable = "NCCL_" + toLower(kind) + "_PLUGIN";
    for (char& c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::optional<std::string> value = env.get(variable);
    std::string line;
    if (!value || value->empty()) {
      unset.push_back(variable);
      warnings.push_back(variable + " is not set to roce");
      continue;
    } else if (toLower(*value) == "none") {
      line = std::string(kind) + ": disabled by " + variable + "=none";
      warnings.push_back(line);
    } else {
      std::string path = find(*value, env);
      bool asLibrary = value->find('/') == std::string::npos && !(startsWith(*value, "lib") && endsWith(*value, ".so"));
      if (path.empty() && asLibrary) path = find("libnccl-" + std::string(kind) + "-" + *value + ".so", env);
      if (path.empty()) {
        line = std::string(kind) + ": " + variable + "=" + *value + " finds no library";
        failures.push_back(line);
      } else {
        std::string name = pluginName(path);
        line = std::string(kind) + ": " + path + (name.empty() ? "" : " (" + name + ")");
        if (name != "nccl-roce") {
          line = std::string(kind) + ": " + path + " is " + (name.empty() ? "not a plugin" : name) + ", not nccl-roce";
          warnings.push_back(line);
        }
      }
      if (std::string(kind) == "env" && version > 0 && version < 22807) {
        line += " (NCCL before 2.28.7 ignores env plugins: the net plugin applies the settings)";
        warnings.push_back(line);
      }
    }
    parts.push_back(line);
  }
  if (!unset.empty()) {
    std::string names;
    for (const auto& u : unset) names += (names.empty() ? "" : ", ") + u;
    parts.push_back(names + " unset");
  }
  std::string detail;
  for (const auto& p : parts) detail += (detail.empty() ? "" : "; ") + p;
  // The .deb installs the library under /usr/lib, where NCCL finds it without LD_LIBRARY_PATH; a tarball does not.
  const char* where = "install the nccl-roce package, or put the tarball's lib/ on LD_LIBRARY_PATH";
  if (!failures.empty()) {
    return CheckResult::fail(id, title, detail, std::string(where) + " (NCCL silently falls back otherwise)");
  }
  if (!warnings.empty()) {
    return CheckResult::warn(id, title, detail,
                             std::string("set NCCL_NET_PLUGIN=roce NCCL_TUNER_PLUGIN=roce NCCL_ENV_PLUGIN=roce; ") +
                                 where + " if NCCL does not find it");
  }
  return CheckResult::pass(id, title, detail);
}

}  // namespace nccl_roce::doctor
