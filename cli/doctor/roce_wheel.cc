#include "cli/doctor/roce_wheel.h"

#include <dirent.h>
#include <unistd.h>

#include <memory>

#include "cli/doctor/python_probe.h"
#include "common/settings.h"
#include "common/strings.h"

namespace nccl_roce::doctor {

namespace {

// "library <path>", "version <v>", "auto-enable 0|1"; or "none <exception>" when the import fails.
constexpr const char* kProbe = R"(import sys
try:
    import nccl_roce, nccl_roce.vllm_plugin as p
except Exception as e:
    print("none", type(e).__name__ + ":", e)
    sys.exit(0)
print("library", nccl_roce.library_path())
print("version", nccl_roce.__version__)
print("auto-enable", int(p.auto_enable()))
)";

void readAnswer(const std::string& answer, RoceWheel& wheel) {
  for (std::string_view line : split(answer, '\n')) {
    if (startsWith(line, "none ModuleNotFoundError:")) {
      wheel.why = wheel.python + " imports no nccl_roce";
      return;
    }
    if (startsWith(line, "none ")) {
      wheel.why = wheel.python + " fails to import nccl_roce (" + std::string(trim(line.substr(5))) + ")";
      wheel.broken = true;
      return;
    }
    if (startsWith(line, "library ")) wheel.library = std::string(line.substr(8));
    if (startsWith(line, "version ")) wheel.version = std::string(line.substr(8));
    if (startsWith(line, "auto-enable ")) wheel.autoEnable = line.substr(12) != "0";
  }
  if (wheel.library.empty()) wheel.why = wheel.python + "'s nccl_roce names no library";
}

std::string parentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string baseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

RoceWheel findRoceWheel(const Environment& env, int timeoutMs) {
  RoceWheel wheel;
  PythonAnswer answer = askPython(env, kProbe, {settings::kAutoEnable.name}, timeoutMs);
  wheel.python = answer.python;
  if (!answer.answered) {
    wheel.why = answer.why;
  } else {
    readAnswer(answer.out, wheel);
  }
  return wheel;
}

std::optional<std::string> wheelHolding(const std::string& path) {
  std::string lib = parentOf(path), package = parentOf(lib), site = parentOf(package);
  if (baseName(path) != "libnccl-roce.so" || baseName(lib) != "lib" || baseName(package) != "nccl_roce" ||
      ::access((package + "/__init__.py").c_str(), R_OK) != 0) {
    return std::nullopt;
  }
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(site.c_str()), ::closedir);
  if (!dir) return std::nullopt;
  constexpr std::string_view kPrefix = "nccl_roce-", kSuffix = ".dist-info";
  // NOLINTNEXTLINE(concurrency-mt-unsafe): glibc's readdir is safe on a stream no other thread reads, as this one
  while (const dirent* entry = ::readdir(dir.get())) {
    std::string_view name = entry->d_name;
    if (startsWith(name, kPrefix) && endsWith(name, kSuffix) && name.size() > kPrefix.size() + kSuffix.size()) {
      return "nccl-roce " + std::string(name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size())) +
             " wheel";
    }
  }
  return std::nullopt;
}

}  // namespace nccl_roce::doctor
