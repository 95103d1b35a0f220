// Which libnccl a vLLM process loads (nccl_search.h), whether its version suits nccl-roce, and which of our
// plugins it will pick, following NCCL's own lookup: NCCL_<T>_PLUGIN as given, else libnccl-<t>-<value>.so; unset
// means libnccl-<t>.so; "none" disables. A variable unset here is what nccl-roce's wheel sets in a vLLM process
// when python3 imports it (roce_wheel.h): the doctor then checks the value the wheel will set.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>

#include "cli/doctor/checks.h"
#include "cli/doctor/nccl_releases.h"
#include "cli/doctor/nccl_search.h"
#include "cli/doctor/roce_wheel.h"
#include "common/log.h"
#include "common/strings.h"
#include "plugin/nccl/net_v6.h"
#include "policy/policy_pin.h"

namespace nccl_roce::doctor {

namespace {

// The remedies, each said once however many findings call for it.
constexpr const char* kWhereRoce = "install the nccl-roce package, or put the tarball's lib/ on LD_LIBRARY_PATH";
const std::string kSetVariables =
    std::string(
        "pip install the nccl-roce wheel in a vLLM image (it sets them), or set NCCL_NET_PLUGIN=roce "
        "NCCL_TUNER_PLUGIN=roce NCCL_ENV_PLUGIN=roce; ") +
    kWhereRoce + " if NCCL does not find it";
const std::string kPluginMissing = std::string(kWhereRoce) + " (NCCL silently falls back otherwise)";
constexpr const char* kNoNccl = "run the doctor in the serving image, with vLLM's environment, or give --nccl-lib";
constexpr const char* kBrokenVariable =
    "point VLLM_NCCL_SO_PATH at a libnccl.so.2 that exists, or unset it so vLLM uses PyTorch's NCCL";
constexpr const char* kOldNccl =
    "use NCCL 2.19 or later (for vLLM: a newer nvidia-nccl-cu12 wheel, or VLLM_NCCL_SO_PATH naming one)";
constexpr const char* kOldForTuner = "use NCCL 2.21 or later for the tuner";
constexpr const char* kOldForAb =
    "use NCCL 2.28 or later for an experiment (for vLLM: a newer nvidia-nccl-cu12 wheel), or set a plain policy";
constexpr const char* kNotNccl =
    "point VLLM_NCCL_SO_PATH (or --nccl-lib) at NCCL's libnccl.so.2, or unset it so vLLM uses PyTorch's NCCL";
constexpr const char* kOldForPath =
    "use NCCL 2.21 or later, or install the nccl-roce package and set NCCL_NET_PLUGIN=roce";

int severity(Outcome o) {
  return o == Outcome::kFail ? 2 : o == Outcome::kWarn ? 1 : 0;
}

// One short line of what was found, and the worst outcome with the remedies it calls for.
class Findings {
 public:
  void add(std::string part) { parts_.push_back(std::move(part)); }
  void raise(Outcome level, const std::string& remedy) {
    if (severity(level) > severity(worst_)) {
      worst_ = level;
      remedies_.clear();
    }
    if (level == worst_ && std::find(remedies_.begin(), remedies_.end(), remedy) == remedies_.end()) {
      remedies_.push_back(remedy);
    }
  }
  CheckResult result(const char* id, const char* title) const {
    std::string detail = join(parts_, "; "), remedy = join(remedies_, "; ");
    if (worst_ == Outcome::kFail) return CheckResult::fail(id, title, detail, remedy);
    if (worst_ == Outcome::kWarn) return CheckResult::warn(id, title, detail, remedy);
    return CheckResult::pass(id, title, detail);
  }

 private:
  std::vector<std::string> parts_, remedies_;
  Outcome worst_ = Outcome::kPass;
};

// Where NCCL looks for a plugin library: LD_LIBRARY_PATH, then the system folders.
std::string findPlugin(const std::string& name, const DoctorInputs& in) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), R_OK) == 0 ? name : "";
  std::vector<std::string> dirs;
  std::string path = in.env->get("LD_LIBRARY_PATH").value_or("");
  for (std::string_view d : split(path, ':')) {
    if (!d.empty()) dirs.emplace_back(d);
  }
  dirs.insert(dirs.end(), in.systemLibraryDirs.begin(), in.systemLibraryDirs.end());
  for (const auto& dir : dirs) {
    if (::access((dir + "/" + name).c_str(), R_OK) == 0) return dir + "/" + name;
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

// Why `path` cannot be an NCCL library vLLM loads ("" when it may be): not a shared object at all, or one without
// ncclGetVersion. A real libnccl that does not load here (a CUDA library missing on this host) is not refused.
std::string whyNotNccl(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char magic[4] = {};
  if (!file.read(magic, sizeof magic) || std::string(magic, sizeof magic) !=
                                             "\x7f"
                                             "ELF") {
    return "not a shared library (no ELF header)";
  }
  void* lib = ::dlopen(path.c_str(), kOpenFlags);
  if (lib == nullptr) return "";
  bool nccl = ::dlsym(lib, "ncclGetVersion") != nullptr;
  ::dlclose(lib);
  return nccl ? "" : "a shared library without ncclGetVersion, not NCCL";
}

// NCCL's own answer (ncclGetVersion: 22809 for 2.28.9), 0 when the library does not give one.
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

std::string versionText(int version) {
  return version > 0 ? format("%d.%d.%d", version / 10000, version / 100 % 100, version % 100)
                     : std::string("of unknown version");
}

// Why vLLM takes this one: its source, then why the places before it gave nothing.
std::string whyChosen(const NcclCandidate& chosen, const NcclSearch& search) {
  std::string why;
  switch (chosen.source) {
    case NcclSource::kGiven:
      return "given with --nccl-lib";
    case NcclSource::kVllmVariable:
      return "named by VLLM_NCCL_SO_PATH";
    case NcclSource::kWheel:
      why = "PyTorch's NCCL wheel, which " + search.python + " imports";
      break;
    case NcclSource::kLibraryPath:
      why = "first on LD_LIBRARY_PATH";
      break;
    case NcclSource::kSystem:
      why = "first in the system folders";
      break;
  }
  return search.missed.empty() ? why : why + ": " + join(search.missed, ", ");
}

// "also found /usr/local/cuda/lib/libnccl.so.2 (system folder)": the others, which vLLM does not load.
void listOthers(const NcclSearch& search, size_t from, Findings& f) {
  std::vector<std::string> others;
  for (size_t i = from; i < search.found.size(); ++i) {
    others.push_back(search.found[i].path + " (" + sourceName(search.found[i].source) + ")");
  }
  if (!others.empty()) f.add((from == 0 ? "found " : "also found ") + join(others, ", "));
}

// The tables NCCL `version` takes from this library (nccl_releases.h), and what it means when that NCCL is newer
// than any this build knows.
void describeTables(int version, Findings& f) {
  if (version < 21900) return;
  const TakenTables t = tablesTakenBy(version);
  std::vector<std::string> names;
  for (const std::string* name : {&t.net, &t.tuner, &t.profiler, &t.env}) {
    if (!name->empty()) names.push_back(*name);
  }
  if (version <= kNewestKnownNccl) {
    f.add("NCCL " + versionText(version) + " takes " + join(names, ", ") + " from nccl-roce");
    return;
  }
  const std::string newest = ncclVersionText(kNewestKnownNccl);
  f.add("NCCL " + versionText(version) + " is newer than the newest release this nccl-roce knows (" + newest +
        "): it takes the newest tables exported here, as " + newest + " does (" + join(names, ", ") +
        "); a table version it added is not exported, so it falls back to these, and what it changed in them is "
        "not known to this build");
  f.raise(Outcome::kWarn, "use an nccl-roce release that knows NCCL " + versionText(version) +
                              " (docs/nccl-versions.md, \"Which table each release takes\")");
}

// The NCCL a vLLM process loads and its version; returns the version (0 when unknown or none).
int describeNccl(const DoctorInputs& in, Findings& f) {
  NcclSearch search = searchNccl(in);
  if (search.brokenVariable) {
    f.add("VLLM_NCCL_SO_PATH=" + in.env->get("VLLM_NCCL_SO_PATH").value_or("") +
          " names no file: vLLM cannot load the NCCL it names");
    f.raise(Outcome::kFail, kBrokenVariable);
    listOthers(search, 0, f);
    return 0;
  }
  if (search.found.empty()) {
    f.add(in.ncclLibrary.empty() ? "no libnccl.so.2 found: " + join(search.missed, ", ")
                                 : in.ncclLibrary + " not found");
    f.raise(Outcome::kWarn, kNoNccl);
    return 0;
  }
  const NcclCandidate& chosen = search.found.front();
  if (std::string why = whyNotNccl(chosen.path); !why.empty()) {
    f.add(chosen.path + " (" + whyChosen(chosen, search) + ") is " + why + ": vLLM cannot load NCCL from it");
    f.raise(Outcome::kFail, kNotNccl);
    listOthers(search, 1, f);
    return 0;
  }
  int version = ncclVersion(chosen.path);
  f.add(std::string(chosen.source == NcclSource::kGiven ? "" : "vLLM loads ") + "NCCL " + versionText(version) +
        " at " + chosen.path + " (" + whyChosen(chosen, search) + ")");
  if (version > 0 && version < 21900) {
    f.add("NCCL " + versionText(version) + " is older than nccl-roce supports (2.19)");
    f.raise(Outcome::kWarn, kOldNccl);
  }
  listOthers(search, 1, f);
  return version;
}

std::string pluginVariable(const std::string& kind) {
  std::string variable = "NCCL_" + kind + "_PLUGIN";
  for (char& c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return variable;
}

// What `value` of NCCL_<KIND>_PLUGIN makes NCCL load ("net: /lib/libnccl-net-roce.so (nccl-roce)"), or what is
// wrong with it.
void describePlugin(const std::string& kind, const std::string& variable, const std::string& value,
                    const DoctorInputs& in, int version, Findings& f) {
  if (toLower(value) == "none") {
    f.add(kind + ": disabled by " + variable + "=none");
    f.raise(Outcome::kWarn, kSetVariables);
    return;
  }
  std::string path = findPlugin(value, in);
  bool asLibrary = value.find('/') == std::string::npos && !(startsWith(value, "lib") && endsWith(value, ".so"));
  if (path.empty() && asLibrary) path = findPlugin("libnccl-" + kind + "-" + value + ".so", in);
  std::string line;
  if (path.empty()) {
    line = kind + ": " + variable + "=" + value + " finds no library";
    f.raise(Outcome::kFail, kPluginMissing);
  } else {
    std::string name = pluginName(path);
    std::optional<std::string> wheel = wheelHolding(path);
    line = kind + ": " + path + (name.empty() ? "" : " (" + name + (wheel ? ", the " + *wheel : "") + ")");
    if (name != "nccl-roce") {
      line = kind + ": " + path + " is " + (name.empty() ? "not a plugin" : name) + ", not nccl-roce";
      f.raise(Outcome::kWarn, kSetVariables);
    }
  }
  // NCCL 2.19 and 2.20 only form libnccl-net-<value>.so from the variable (src/net.cc); 2.21 opens it as given first.
  if (kind == "net" && value.find('/') != std::string::npos && version > 0 && version < 22100) {
    line += " (NCCL before 2.21 opens a net plugin by name only, never by path: NCCL's own transport runs)";
    f.raise(Outcome::kWarn, kOldForPath);
  }
  if (kind == "env" && version > 0 && version < 22807) {
    // Nothing to do: the net plugin applies the same settings at its init, which this NCCL calls.
    line += " (NCCL before 2.28.7 loads no env plugin: the net plugin applies the settings instead)";
  }
  if (kind == "tuner" && version > 0 && version < 22100) {
    line += " (NCCL before 2.21 loads no tuner plugin of ours: NCCL decides alone)";
    f.raise(Outcome::kWarn, kOldForTuner);
  }
  f.add(line);
}

// Before NCCL 2.28 the tuner is given no communicator id, so every communicator of a process runs one arm and an
// experiment compares processes, not arms (docs/ab-testing.md): said where the policy this pod loads is one.
void describeExperimentSupport(const DoctorInputs& in, int version, Findings& f) {
  if (version <= 0 || version >= 22800) return;
  std::shared_ptr<const policy::ActivePolicy> active = policy::loadRequestedPolicy(*in.env);
  if (!active->experiment()) return;
  f.add("the policy '" + active->requested() + "' is an experiment, and NCCL " + versionText(version) +
        " gives the tuner no communicator id: every communicator of a process runs one arm, so `nccl-roce ab` "
        "cannot compare arms (A/B needs NCCL 2.28 or later)");
  f.raise(Outcome::kWarn, kOldForAb);
}

}  // namespace

CheckResult checkNcclLibrary(const DoctorInputs& in) {
  Findings f;
  int version = describeNccl(in, f);
  std::optional<RoceWheel> wheel;  // python3 is asked only when a variable is unset
  std::vector<std::string> unset, setByWheel;
  for (const char* kind : {"net", "tuner", "env"}) {
    std::string variable = pluginVariable(kind);
    std::optional<std::string> value = in.env->get(variable);
    if (!value || value->empty()) {  // NCCL reads an empty value as unset, and so does the wheel
      if (!wheel) wheel = findRoceWheel(*in.env, in.pythonTimeoutMs);
      if (wheel->library.empty() || !wheel->autoEnable) {
        unset.push_back(variable);
        f.raise(Outcome::kWarn, kSetVariables);
        continue;
      }
      value = wheel->library;
      setByWheel.push_back(variable);
    }
    describePlugin(kind, variable, *value, in, version, f);
  }
  if (!setByWheel.empty()) {
    f.add(join(setByWheel, ", ") + " unset here: the nccl-roce " + wheel->version + " wheel, which " + wheel->python +
          " imports, sets them in each vLLM process (elsewhere, call nccl_roce.enable())");
  }
  if (!unset.empty()) {
    bool optedOut = wheel && !wheel->library.empty() && !wheel->autoEnable;
    if (wheel && wheel->broken) f.add(wheel->why + ": a broken nccl-roce wheel sets nothing");
    f.add(join(unset, ", ") + " unset" +
          (optedOut
               ? " (NCCL_ROCE_AUTO_ENABLE=0: the nccl-roce wheel, which " + wheel->python + " imports, sets nothing)"
               : ""));
  }
  describeTables(version, f);
  describeExperimentSupport(in, version, f);
  return f.result("nccl-library", "NCCL and the plugins it will load");
}

}  // namespace nccl_roce::doctor
