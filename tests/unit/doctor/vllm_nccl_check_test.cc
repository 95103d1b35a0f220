// Which libnccl.so.2 the doctor says a vLLM process loads, and why: the file VLLM_NCCL_SO_PATH names; else PyTorch's
// NCCL wheel (site-packages/nvidia/nccl/lib) as the python3 on PATH imports it, PYTHONPATH honoured; else the first
// on LD_LIBRARY_PATH; else the system folders. The wheels are laid out as pip installs them, their
// lib/libnccl.so.2 a link to this machine's real NCCL 2.28.9; the real python3 is asked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using doctor::Outcome;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kRealNccl = "/usr/local/cuda/lib/libnccl.so.2";
constexpr const char* kPython = "/usr/bin/python3";

// A pod whose NCCL is searched for (no --nccl-lib), with Debian's python3 first on PATH and nothing else set.
class VllmPod : public DoctorWorld {
 public:
  VllmPod() {
    ncclLibrary = "";
    env.set("PATH", "/usr/bin:/bin");
  }

  // ROOT/nvidia/nccl as pip installs nvidia-nccl-cu12: `nvidia` a namespace package (no __init__.py), `nccl` a
  // regular one unless `namespacePackage`; with lib/libnccl.so.2 linked to `nccl` unless that is empty.
  std::string wheel(const std::string& root, const std::string& nccl, bool namespacePackage = false) {
    std::string package = root + "/nvidia/nccl";
    dir.writeFile(package + "/lib/.keep", "");
    if (!namespacePackage) dir.writeFile(package + "/__init__.py", "");
    if (!nccl.empty()) ::symlink(nccl.c_str(), dir.join(package + "/lib/libnccl.so.2").c_str());
    return dir.join(package + "/lib/libnccl.so.2");
  }

  // A folder holding libnccl.so.2, a link to `nccl`.
  std::string libraryFolder(const std::string& relative, const std::string& nccl) {
    dir.writeFile(relative + "/.keep", "");
    ::symlink(nccl.c_str(), dir.join(relative + "/libnccl.so.2").c_str());
    return dir.join(relative);
  }

  doctor::CheckResult check() { return doctor::checkNcclLibrary(inputs()); }
};

bool haveRealNcclAndPython() {
  return ::access(kRealNccl, R_OK) == 0 && ::access(kPython, X_OK) == 0;
}

#define REQUIRE_NCCL_AND_PYTHON()                                                            \
  if (!haveRealNcclAndPython()) GTEST_SKIP() << "needs " << kRealNccl << " and " << kPython; \
  static_assert(true)

TEST(VllmNccl, TheWheelPython3ImportsWinsOverLdLibraryPathAndTheSystemFolders) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  std::string wheel = pod.wheel("site-packages", kRealNccl);
  pod.env.set("PYTHONPATH", pod.dir.join("site-packages"));
  std::string older = pod.libraryFolder("opt/nccl-2.18/lib", NCCL_2_18_PATH);
  pod.env.set("LD_LIBRARY_PATH", older + ":" + older);  // one file twice: found once
  pod.systemLibraryDirs = {pod.libraryFolder("usr/lib", NCCL_2_18_PATH)};
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr("vLLM loads NCCL 2.28.9 at " + wheel + " (PyTorch's NCCL wheel, which " + kPython +
                                  " imports: VLLM_NCCL_SO_PATH unset); also found " + older +
                                  "/libnccl.so.2 (LD_LIBRARY_PATH); NCCL_NET_PLUGIN"));
  EXPECT_THAT(r.detail, Not(HasSubstr("older than nccl-roce supports"))) << "only the loaded NCCL's version counts";
}

TEST(VllmNccl, VllmNcclSoPathWinsOverTheWheel) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  std::string wheel = pod.wheel("site-packages", kRealNccl);
  pod.env.set("PYTHONPATH", pod.dir.join("site-packages"));
  pod.env.set("VLLM_NCCL_SO_PATH", NCCL_2_18_PATH);
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr(std::string("vLLM loads NCCL 2.18.5 at ") + NCCL_2_18_PATH +
                                  " (named by VLLM_NCCL_SO_PATH); NCCL 2.18.5 is older than nccl-roce supports (2.19)"
                                  "; also found " +
                                  wheel + " (PyTorch's NCCL wheel)"));
  EXPECT_THAT(r.remedy, HasSubstr("use NCCL 2.19 or later"));
}

TEST(VllmNccl, AVllmNcclSoPathNamingNoFileFailsNamingTheVariable) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  std::string wheel = pod.wheel("site-packages", kRealNccl);
  pod.env.set("PYTHONPATH", pod.dir.join("site-packages"));
  std::string missing = pod.dir.join("opt/nccl/lib/libnccl.so.2");
  pod.env.set("VLLM_NCCL_SO_PATH", missing);
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail,
              HasSubstr("VLLM_NCCL_SO_PATH=" + missing + " names no file: vLLM cannot load the NCCL it names; found " +
                        wheel + " (PyTorch's NCCL wheel)"));
  EXPECT_THAT(r.remedy, HasSubstr("point VLLM_NCCL_SO_PATH at a libnccl.so.2 that exists, or unset it"));
}

TEST(VllmNccl, AnEmptyVllmNcclSoPathIsIgnoredAsVllmIgnoresIt) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  std::string wheel = pod.wheel("site-packages", kRealNccl);
  pod.env.set("PYTHONPATH", pod.dir.join("site-packages"));
  pod.env.set("VLLM_NCCL_SO_PATH", "");
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr("vLLM loads NCCL 2.28.9 at " + wheel + " (PyTorch's NCCL wheel, which " + kPython +
                                  " imports: VLLM_NCCL_SO_PATH empty, which vLLM ignores)"));
}

TEST(VllmNccl, ANamespacePackageIsSearchedPortionByPortion) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  // nvidia/nccl without __init__.py in two folders of PYTHONPATH: the first portion holds no library.
  pod.wheel("first", "", /*namespacePackage=*/true);
  std::string wheel = pod.wheel("second", kRealNccl, /*namespacePackage=*/true);
  pod.env.set("PYTHONPATH", pod.dir.join("first") + ":" + pod.dir.join("second"));
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr("vLLM loads NCCL 2.28.9 at " + wheel + " (PyTorch's NCCL wheel"));
}

TEST(VllmNccl, AWheelWithoutTheLibraryLeavesItToLdLibraryPath) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  pod.wheel("site-packages", "", /*namespacePackage=*/true);
  pod.env.set("PYTHONPATH", pod.dir.join("site-packages"));
  std::string lib = pod.libraryFolder("opt/nccl/lib", kRealNccl);
  pod.env.set("LD_LIBRARY_PATH", lib);
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr("vLLM loads NCCL 2.28.9 at " + lib +
                                  "/libnccl.so.2 (first on LD_LIBRARY_PATH: "
                                  "VLLM_NCCL_SO_PATH unset, " +
                                  kPython + "'s nvidia.nccl (" + pod.dir.join("site-packages/nvidia/nccl") +
                                  ") holds no lib/libnccl.so.2)"));
}

TEST(VllmNccl, WithoutTheWheelTheSystemFoldersCount) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  pod.systemLibraryDirs = {pod.dir.join("usr/local/cuda/lib"), pod.libraryFolder("usr/lib", kRealNccl)};
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr("vLLM loads NCCL 2.28.9 at " + pod.dir.join("usr/lib/libnccl.so.2") +
                                  " (first in the system folders: VLLM_NCCL_SO_PATH unset, " + kPython +
                                  " imports no nvidia.nccl, LD_LIBRARY_PATH unset)"));
}

TEST(VllmNccl, WithoutPython3TheLoaderPathCounts) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  pod.wheel("site-packages", kRealNccl);
  pod.env.set("PYTHONPATH", pod.dir.join("site-packages"));
  pod.env.set("PATH", pod.dir.join("bin"));  // no python3 there
  std::string lib = pod.libraryFolder("opt/nccl/lib", kRealNccl);
  pod.env.set("LD_LIBRARY_PATH", lib);
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr("(first on LD_LIBRARY_PATH: VLLM_NCCL_SO_PATH unset, no python3 on PATH)"));
}

TEST(VllmNccl, NothingFoundWarnsSayingWhereItLooked) {
  VllmPod pod;
  pod.env.set("PATH", pod.dir.join("bin"));
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr("no libnccl.so.2 found: VLLM_NCCL_SO_PATH unset, no python3 on PATH, "
                                  "LD_LIBRARY_PATH unset, none in " +
                                  pod.dir.join("usr/lib")));
  EXPECT_THAT(r.remedy, HasSubstr("run the doctor in the serving image"));
}

// A python3 that never answers (a hung shim, a stalled network file system) costs the doctor its time bound only.
TEST(VllmNccl, APython3ThatHangsIsKilledAtTheTimeBound) {
  VllmPod pod;
  pod.dir.writeFile("bin/python3", "#!/bin/sh\nexec /bin/sleep 60\n");
  ::chmod(pod.dir.join("bin/python3").c_str(), 0755);
  pod.env.set("PATH", pod.dir.join("bin"));
  pod.pythonTimeoutMs = 300;
  auto start = std::chrono::steady_clock::now();
  auto r = pod.check();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_THAT(r.detail, HasSubstr(pod.dir.join("bin/python3") + " did not answer within 0.3 s"));
}

TEST(VllmNccl, APython3ThatFailsIsReportedWithWhatItSaid) {
  VllmPod pod;
  pod.dir.writeFile("bin/python3", "#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n");
  ::chmod(pod.dir.join("bin/python3").c_str(), 0755);
  pod.env.set("PATH", pod.dir.join("bin"));
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr(pod.dir.join("bin/python3") + " exited 1: Fatal Python error: init_fs_encoding"));
}

TEST(VllmNccl, ABrokenWheelIsReportedWithPythonsError) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  pod.wheel("site-packages", kRealNccl);
  pod.dir.writeFile("site-packages/nvidia/nccl/__init__.py", "raise ImportError('half-installed wheel')\n");
  pod.env.set("PYTHONPATH", pod.dir.join("site-packages"));
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr(std::string(kPython) + " fails to import nvidia.nccl (ImportError: half-installed "
                                                         "wheel)"));
}

TEST(VllmNccl, ABareNameInVllmNcclSoPathIsSearchedOnTheLoaderPath) {
  REQUIRE_NCCL_AND_PYTHON();
  VllmPod pod;
  pod.wheel("site-packages", kRealNccl);  // holds libnccl.so.2, not the name asked for
  pod.env.set("PYTHONPATH", pod.dir.join("site-packages"));
  pod.dir.writeFile("opt/nccl/lib/.keep", "");
  ::symlink(kRealNccl, pod.dir.join("opt/nccl/lib/libnccl.so.2.28.9").c_str());
  pod.env.set("LD_LIBRARY_PATH", pod.dir.join("opt/nccl/lib"));
  pod.env.set("VLLM_NCCL_SO_PATH", "libnccl.so.2.28.9");
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr("vLLM loads NCCL 2.28.9 at " + pod.dir.join("opt/nccl/lib/libnccl.so.2.28.9") +
                                  " (first on LD_LIBRARY_PATH: VLLM_NCCL_SO_PATH=libnccl.so.2.28.9, a name the "
                                  "loader searches for)"));
}

// The plugin's needs, checked against the NCCL vLLM loads: 2.21 for the tuner, 2.28.7 for the env plugin.
TEST(VllmNccl, TheLoadedNcclsVersionIsCheckedForEachPlugin) {
  VllmPod pod;
  pod.env.set("PATH", pod.dir.join("bin"));
  pod.env.set("VLLM_NCCL_SO_PATH", NCCL_2_18_PATH);
  for (const char* v : {"NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN"})
    pod.env.set(v, NCCL_ROCE_PLUGIN_PATH);
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, AllOf(HasSubstr("(NCCL before 2.21 loads no tuner plugin of ours: NCCL decides alone)"),
                              HasSubstr("(NCCL before 2.28.7 loads no env plugin: the net plugin applies the settings "
                                        "instead)")));
  EXPECT_THAT(r.remedy, AllOf(HasSubstr("use NCCL 2.19 or later"), HasSubstr("use NCCL 2.21 or later for the tuner")));
}

// vLLM dlopens what VLLM_NCCL_SO_PATH names: a file that is no shared library (a config file, a truncated copy)
// fails the check, never passes as "NCCL of unknown version".
TEST(VllmNccl, AVllmNcclSoPathNamingATextFileFails) {
  VllmPod pod;
  pod.env.set("PATH", pod.dir.join("bin"));
  std::string text = pod.dir.writeFile("opt/libnccl.so.2", "not a library\n");
  pod.env.set("VLLM_NCCL_SO_PATH", text);
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr(text + " (named by VLLM_NCCL_SO_PATH) is not a shared library (no ELF header): "
                                         "vLLM cannot load NCCL from it"));
  EXPECT_THAT(r.detail, Not(HasSubstr("unknown version")));
  EXPECT_THAT(r.remedy, HasSubstr("point VLLM_NCCL_SO_PATH (or --nccl-lib) at NCCL's libnccl.so.2"));
  pod.env.set("VLLM_NCCL_SO_PATH", NCCL_ROCE_PLUGIN_PATH);  // a shared library, but not NCCL
  auto plugin = pod.check();
  EXPECT_EQ(plugin.outcome, Outcome::kFail);
  EXPECT_THAT(plugin.detail, HasSubstr("is a shared library without ncclGetVersion, not NCCL"));
}

// NCCL 2.27 with every variable set: nothing to set (its net plugin applies the settings), so no advice to set
// them; but an experiment there cannot compare arms (no communicator id before 2.28), and the doctor says so.
TEST(VllmNccl, OnNccl227EveryVariableSetPassesAndAnExperimentIsToldItNeeds228) {
  VllmPod pod;
  pod.env.set("PATH", pod.dir.join("bin"));
  pod.env.set("VLLM_NCCL_SO_PATH", NCCL_2_27_PATH);
  for (const char* v : {"NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN"})
    pod.env.set(v, NCCL_ROCE_PLUGIN_PATH);
  auto plain = pod.check();
  EXPECT_EQ(plain.outcome, Outcome::kPass) << plain.detail << " / " << plain.remedy;
  EXPECT_THAT(plain.detail, HasSubstr("NCCL 2.27.7 at " + std::string(NCCL_2_27_PATH)));
  pod.dir.writeFile("control.toml", "[policy]\nname = \"control\"\n");
  pod.env.set("NCCL_ROCE_POLICY",
              pod.dir.writeFile("experiment.toml",
                                "[experiment]\nname = \"e\"\n[[experiment.arm]]\nname = "
                                "\"control\"\npolicy = \"control.toml\"\nweight = 50\n[[experiment.arm]]\n"
                                "name = \"candidate\"\npolicy = \"inference\"\nweight = 50\n"));
  auto experiment = pod.check();
  EXPECT_EQ(experiment.outcome, Outcome::kWarn);
  EXPECT_THAT(experiment.detail, HasSubstr("is an experiment, and NCCL 2.27.7 gives the tuner no communicator id"));
  EXPECT_THAT(experiment.remedy, HasSubstr("use NCCL 2.28 or later for an experiment"));
  EXPECT_THAT(experiment.remedy, Not(HasSubstr("NCCL_NET_PLUGIN=roce")));
}

}  // namespace
}  // namespace nccl_roce::testing
