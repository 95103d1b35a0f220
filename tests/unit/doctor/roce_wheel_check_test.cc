// The doctor and nccl-roce's own wheel. In a vLLM image the wheel's entry point sets NCCL_NET_PLUGIN,
// NCCL_TUNER_PLUGIN and NCCL_ENV_PLUGIN inside each vLLM process, so the shell the doctor runs in shows them
// unset: the doctor asks the python3 on PATH for the package and checks the library the variables will name. A
// variable set to a path inside the wheel is recognised from the files pip installed. The wheel here is laid out as
// pip installs it, from the package's real sources (python/nccl_roce), its library a link to the built one; the
// real python3 is asked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using doctor::Outcome;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kRealNccl = "/usr/local/cuda/lib/libnccl.so.2";
constexpr const char* kPython = "/usr/bin/python3";

std::string readSource(const std::string& relative) {
  std::ifstream in(sourcePath(relative));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A pod with the wheel in site-packages (on PYTHONPATH) and Debian's python3 first on PATH; NCCL is given.
class WheelPod : public DoctorWorld {
 public:
  WheelPod() {
    ncclLibrary = ::access(kRealNccl, R_OK) == 0 ? kRealNccl : NCCL_2_18_PATH;
    env.set("PATH", "/usr/bin:/bin");
    env.set("PYTHONPATH", dir.join("site-packages"));
    for (const char* file : {"__init__.py", "vllm_plugin.py", "__main__.py", "command.py"}) {
      dir.writeFile(std::string("site-packages/nccl_roce/") + file,
                    readSource(std::string("python/nccl_roce/") + file));
    }
    dir.writeFile("site-packages/nccl_roce/_version.py", "VERSION = \"0.1.0\"\n");
    dir.writeFile("site-packages/nccl_roce/lib/.keep", "");
    ::symlink(NCCL_ROCE_PLUGIN_PATH, library().c_str());
    dir.writeFile("site-packages/nccl_roce-0.1.0.dist-info/METADATA", "Name: nccl-roce\nVersion: 0.1.0\n");
  }
  std::string library() const { return dir.join("site-packages/nccl_roce/lib/libnccl-roce.so"); }
  doctor::CheckResult check() { return doctor::checkNcclLibrary(inputs()); }
};

bool haveRealNcclAndPython() {
  return ::access(kRealNccl, R_OK) == 0 && ::access(kPython, X_OK) == 0;
}

TEST(RoceWheel, UnsetVariablesAreCheckedAsTheWheelWillSetThemInVllm) {
  if (!haveRealNcclAndPython()) GTEST_SKIP() << "needs " << kRealNccl << " and " << kPython;
  WheelPod pod;
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.detail;
  for (const char* kind : {"net", "tuner", "env"}) {
    EXPECT_THAT(r.detail,
                HasSubstr(std::string(kind) + ": " + pod.library() + " (nccl-roce, the nccl-roce 0.1.0 wheel)"));
  }
  EXPECT_THAT(r.detail,
              HasSubstr("NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN unset here: the nccl-roce 0.1.0 "
                        "wheel, which /usr/bin/python3 imports, sets them in each vLLM process (elsewhere, call "
                        "nccl_roce.enable())"));
}

TEST(RoceWheel, AVariableSetToTheWheelsLibraryNamesTheWheelWithoutAskingPython) {
  if (::access(kRealNccl, R_OK) != 0) GTEST_SKIP() << kRealNccl << " not installed";
  WheelPod pod;
  pod.env.set("PATH", pod.dir.join("no-python"));  // a python3 asked would not be found, and the line would say so
  for (const char* v : {"NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN"}) pod.env.set(v, pod.library());
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("net: " + pod.library() + " (nccl-roce, the nccl-roce 0.1.0 wheel)"));
  EXPECT_THAT(r.detail, Not(HasSubstr("unset")));
}

TEST(RoceWheel, TheUsersOwnValueWinsOverTheWheel) {
  if (!haveRealNcclAndPython()) GTEST_SKIP() << "needs " << kRealNccl << " and " << kPython;
  WheelPod pod;
  pod.env.set("NCCL_TUNER_PLUGIN", "none");
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kWarn) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("tuner: disabled by NCCL_TUNER_PLUGIN=none"));
  EXPECT_THAT(r.detail, HasSubstr("NCCL_NET_PLUGIN, NCCL_ENV_PLUGIN unset here: the nccl-roce 0.1.0 wheel"));
}

TEST(RoceWheel, OptedOutTheWheelSetsNothingAndTheVariablesCountAsUnset) {
  if (::access(kPython, X_OK) != 0) GTEST_SKIP() << "needs " << kPython;
  WheelPod pod;
  pod.env.set("NCCL_ROCE_AUTO_ENABLE", "0");
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kWarn) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN unset (NCCL_ROCE_AUTO_ENABLE=0: "
                                  "the nccl-roce wheel, which /usr/bin/python3 imports, sets nothing)"));
  EXPECT_THAT(r.remedy, HasSubstr("pip install the nccl-roce wheel"));
}

TEST(RoceWheel, WithoutTheWheelUnsetVariablesWarnAsBefore) {
  if (::access(kPython, X_OK) != 0) GTEST_SKIP() << "needs " << kPython;
  WheelPod pod;
  pod.env.set("PYTHONPATH", pod.dir.join("elsewhere"));
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kWarn) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN unset"));
  EXPECT_THAT(r.detail, Not(HasSubstr("wheel")));
}

TEST(RoceWheel, ABrokenWheelIsReportedWithPythonsError) {
  if (::access(kPython, X_OK) != 0) GTEST_SKIP() << "needs " << kPython;
  WheelPod pod;
  pod.dir.writeFile("site-packages/nccl_roce/_version.py", "raise RuntimeError('half-installed')\n");
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kWarn) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("/usr/bin/python3 fails to import nccl_roce (RuntimeError: half-installed): a broken "
                                  "nccl-roce wheel sets nothing"));
  EXPECT_THAT(r.detail, HasSubstr("NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN unset"));
}

TEST(RoceWheel, ALibraryOutsideAnInstalledWheelIsNotCalledOne) {
  WheelPod pod;
  std::string copy = pod.dir.join("opt/nccl_roce/lib/libnccl-roce.so");  // the package's shape, no dist-info
  pod.dir.writeFile("opt/nccl_roce/__init__.py", "");
  pod.dir.writeFile("opt/nccl_roce/lib/.keep", "");
  ::symlink(NCCL_ROCE_PLUGIN_PATH, copy.c_str());
  for (const char* v : {"NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN"}) pod.env.set(v, copy);
  auto r = pod.check();
  EXPECT_THAT(r.detail, HasSubstr("net: " + copy + " (nccl-roce)"));
  EXPECT_THAT(r.detail, Not(HasSubstr("wheel")));
}

TEST(RoceWheel, NcclBefore2_21CannotOpenTheNetPluginByPath) {
  WheelPod pod;
  pod.ncclLibrary = NCCL_2_18_PATH;
  for (const char* v : {"NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN"}) pod.env.set(v, pod.library());
  auto r = pod.check();
  EXPECT_EQ(r.outcome, Outcome::kWarn) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("net: " + pod.library() +
                                  " (nccl-roce, the nccl-roce 0.1.0 wheel) (NCCL before "
                                  "2.21 opens a net plugin by name only, never by path: NCCL's own transport runs)"));
  EXPECT_THAT(r.remedy, HasSubstr("use NCCL 2.21 or later, or install the nccl-roce package"));
}

}  // namespace
}  // namespace nccl_roce::testing
