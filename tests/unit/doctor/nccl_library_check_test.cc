// Which libnccl the environment loads and which plugin each NCCL_<T>_PLUGIN value makes NCCL pick, following
// NCCL's lookup (the value as a file name, then libnccl-<t>-<value>.so on the library path).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using doctor::Outcome;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kRealNccl = "/usr/local/cuda/lib/libnccl.so.2";

// A directory laid out as the package installs it: libnccl-roce.so and its three links.
std::string installPlugin(const TempDir& dir) {
  std::string lib = dir.join("lib");
  dir.writeFile("lib/.keep", "");
  ::symlink(NCCL_ROCE_PLUGIN_PATH, (lib + "/libnccl-roce.so").c_str());
  for (const char* kind : {"net", "tuner", "env"}) {
    ::symlink("libnccl-roce.so", (lib + "/libnccl-" + kind + "-roce.so").c_str());
  }
  return lib;
}

void selectRoce(MapEnvironment& env) {
  for (const char* v : {"NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN"}) env.set(v, "roce");
}

TEST(NcclLibraryCheck, PassesWhenAllThreeVariablesFindThisLibrary) {
  if (::access(kRealNccl, R_OK) != 0) GTEST_SKIP() << kRealNccl << " not installed";
  DoctorWorld w;
  w.ncclLibrary = kRealNccl;
  w.env.set("LD_LIBRARY_PATH", installPlugin(w.dir));
  selectRoce(w.env);
  auto r = doctor::checkNcclLibrary(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("NCCL 2."));
  EXPECT_THAT(r.detail, HasSubstr("net: " + w.dir.join("lib/libnccl-net-roce.so") + " (nccl-roce)"));
  EXPECT_THAT(r.detail, HasSubstr("env: " + w.dir.join("lib/libnccl-env-roce.so") + " (nccl-roce)"));
}

TEST(NcclLibraryCheck, FailsWhenAVariableFindsNoLibrary) {
  DoctorWorld w;
  selectRoce(w.env);  // ...but the library is not on LD_LIBRARY_PATH
  w.env.set("LD_LIBRARY_PATH", w.dir.join("empty"));
  auto r = doctor::checkNcclLibrary(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_THAT(r.detail, HasSubstr("net: NCCL_NET_PLUGIN=roce finds no library"));
  EXPECT_THAT(r.remedy, HasSubstr("LD_LIBRARY_PATH"));
}

TEST(NcclLibraryCheck, WarnsWhenThePluginVariablesAreUnsetOrNone) {
  DoctorWorld w;
  w.env.set("NCCL_TUNER_PLUGIN", "none");
  auto r = doctor::checkNcclLibrary(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr("NCCL_NET_PLUGIN, NCCL_ENV_PLUGIN unset"));
  EXPECT_THAT(r.detail, HasSubstr("tuner: disabled by NCCL_TUNER_PLUGIN=none"));
  EXPECT_THAT(r.remedy, HasSubstr("NCCL_NET_PLUGIN=roce"));
}

TEST(NcclLibraryCheck, WarnsWhenAVariableFindsAnotherPlugin) {
  DoctorWorld w;
  std::string lib = installPlugin(w.dir);
  w.env.set("LD_LIBRARY_PATH", lib);
  selectRoce(w.env);
  w.env.set("NCCL_TUNER_PLUGIN", "/usr/lib/x86_64-linux-gnu/libm.so.6");  // a library without a tuner table
  auto r = doctor::checkNcclLibrary(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr("tuner: /usr/lib/x86_64-linux-gnu/libm.so.6 is not a plugin, not nccl-roce"));
}

TEST(NcclLibraryCheck, WarnsWhenNoNcclLibraryIsFound) {
  DoctorWorld w;  // ncclLibrary points at a path that does not exist
  std::string lib = installPlugin(w.dir);
  w.env.set("LD_LIBRARY_PATH", lib);
  selectRoce(w.env);
  auto r = doctor::checkNcclLibrary(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr(w.inputs().ncclLibrary + " not found"));
  EXPECT_THAT(r.detail, Not(HasSubstr("LD_LIBRARY_PATH"))) << "a given library is not searched for";
}

}  // namespace
}  // namespace nccl_roce::testing
