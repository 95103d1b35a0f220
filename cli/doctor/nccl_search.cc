#include "cli/doctor/nccl_search.h"

#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <utility>

#include "cli/doctor/nccl_wheel.h"
#include "common/strings.h"

namespace nccl_roce::doctor {

namespace {

constexpr const char* kLibrary = "libnccl.so.2";

class Search {
 public:
  // A readable file not seen before (the loader, too, takes two paths to one file for one library).
  void add(const std::string& path, NcclSource source) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(path.c_str(), R_OK) != 0) return;
    if (!seen_.insert({st.st_dev, st.st_ino}).second) return;
    result.found.push_back({path, source});
  }
  // Why a place gave nothing, worth saying only while nothing was found before it.
  void miss(std::string why) {
    if (result.found.empty()) result.missed.push_back(std::move(why));
  }
  size_t count() const { return result.found.size(); }

  NcclSearch result;

 private:
  std::set<std::pair<dev_t, ino_t>> seen_;
};

// VLLM_NCCL_SO_PATH: a path is what vLLM opens; a bare name is searched for as libnccl.so.2 would be. Returns the
// file name the rest of the search looks for.
std::string searchVariable(const Environment& env, Search& s) {
  std::optional<std::string> value = env.get("VLLM_NCCL_SO_PATH");
  if (!value) {
    s.miss("VLLM_NCCL_SO_PATH unset");
  } else if (value->empty()) {
    s.miss("VLLM_NCCL_SO_PATH empty, which vLLM ignores");  // vLLM tests it for truth
  } else if (value->find('/') == std::string::npos) {
    s.miss("VLLM_NCCL_SO_PATH=" + *value + ", a name the loader searches for");
    return *value;
  } else {
    s.add(*value, NcclSource::kVllmVariable);
    s.result.brokenVariable = s.count() == 0;
  }
  return kLibrary;
}

// The loader's part: LD_LIBRARY_PATH, then the system folders.
void searchLoaderPath(const DoctorInputs& in, const std::string& name, Search& s) {
  size_t before = s.count();
  std::optional<std::string> variable = in.env->get("LD_LIBRARY_PATH");
  std::string path = variable.value_or("");
  for (std::string_view dir : split(path, ':')) {
    if (!dir.empty()) s.add(std::string(dir) + "/" + name, NcclSource::kLibraryPath);
  }
  if (s.count() == before) s.miss(variable ? "none on LD_LIBRARY_PATH" : "LD_LIBRARY_PATH unset");
  before = s.count();
  for (const std::string& dir : in.systemLibraryDirs) s.add(dir + "/" + name, NcclSource::kSystem);
  if (s.count() == before) {
    std::string dirs;
    for (const std::string& dir : in.systemLibraryDirs) dirs += (dirs.empty() ? "" : ", ") + dir;
    s.miss("none in " + dirs);
  }
}

}  // namespace

const char* sourceName(NcclSource source) {
  switch (source) {
    case NcclSource::kGiven:
      return "given with --nccl-lib";
    case NcclSource::kVllmVariable:
      return "VLLM_NCCL_SO_PATH";
    case NcclSource::kWheel:
      return "PyTorch's NCCL wheel";
    case NcclSource::kLibraryPath:
      return "LD_LIBRARY_PATH";
    case NcclSource::kSystem:
      return "system folder";
  }
  return "";
}

NcclSearch searchNccl(const DoctorInputs& in) {
  Search s;
  if (!in.ncclLibrary.empty()) {
    s.add(in.ncclLibrary, NcclSource::kGiven);
    return s.result;
  }
  std::string name = searchVariable(*in.env, s);
  // Importing torch loads the wheel's library under its soname, which a later dlopen of that name gets.
  if (name == kLibrary) {
    NcclWheel wheel = findNcclWheel(*in.env, name, in.pythonTimeoutMs);
    s.result.python = wheel.python;
    if (!wheel.library.empty()) s.add(wheel.library, NcclSource::kWheel);
    if (wheel.library.empty()) s.miss(wheel.why);
  }
  searchLoaderPath(in, name, s);
  return s.result;
}

}  // namespace nccl_roce::doctor
