// The portable-library promise of DESIGN.md section 1, checked on the built file: exactly the plugin tables are
// exported, and the only runtime dependencies are the C runtime's, so the .so loads on any image (no
// rdma-core, hwloc, CUDA or libstdc++ needed).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "tests/abi/plugin_library.h"
#include "tests/support/run_command.h"

namespace nccl_roce::testing {
namespace {

std::set<std::string> words(const std::string& text, size_t column) {
  std::set<std::string> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string field;
    for (size_t i = 0; i <= column && fields >> field; ++i) {
      if (i == column) out.insert(field);
    }
  }
  return out;
}

TEST(Exports, ExactlyThePluginTablesOfDesign) {
  auto nm = runCommand("nm -D --defined-only " + PluginLibrary::builtPath());
  ASSERT_EQ(nm.exitCode, 0) << nm.err;
  std::set<std::string> expected{
      "ncclNetPlugin_v6",   "ncclNetPlugin_v7",   "ncclNetPlugin_v8",   "ncclNetPlugin_v9",   "ncclNetPlugin_v10",
      "ncclNetPlugin_v11",  "ncclNetPlugin_v12",  "ncclTunerPlugin_v2", "ncclTunerPlugin_v3", "ncclTunerPlugin_v4",
      "ncclTunerPlugin_v5", "ncclTunerPlugin_v6", "ncclTunerPlugin_v7", "ncclEnvPlugin_v1",   "ncclEnvPlugin_v2",
      "ncclProfiler_v1",    "ncclProfiler_v2",    "ncclProfiler_v3",    "ncclProfiler_v4",    "ncclProfiler_v5",
      "ncclProfiler_v6",    "ncclProfiler_v7"};
  EXPECT_EQ(words(nm.out, 2), expected) << nm.out;
}

TEST(Exports, RuntimeDependenciesAreOnlyTheCRuntime) {
  auto readelf = runCommand("readelf -d " + PluginLibrary::builtPath() + " | grep NEEDED");
  ASSERT_EQ(readelf.exitCode, 0) << readelf.err;
  std::set<std::string> allowed{"[libc.so.6]", "[libm.so.6]", "[libdl.so.2]", "[libpthread.so.0]", "[librt.so.1]",
                                "[ld-linux-x86-64.so.2]"};
  std::set<std::string> needed = words(readelf.out, 4);
  ASSERT_FALSE(needed.empty());
  for (const auto& library : needed) EXPECT_EQ(allowed.count(library), 1u) << library << " must be dlopen'd, not linked";
}

TEST(Exports, NoUndefinedSymbolBeyondTheCRuntime) {
  auto nm = runCommand("nm -D --undefined-only " + PluginLibrary::builtPath());
  ASSERT_EQ(nm.exitCode, 0);
  EXPECT_THAT(nm.out, ::testing::Not(::testing::HasSubstr("GLIBCXX"))) << "libstdc++ is linked statically";
  EXPECT_THAT(nm.out, ::testing::Not(::testing::HasSubstr("ibv_"))) << "libibverbs is dlopen'd";
}

TEST(Exports, NcclFindsItUnderEachPluginTypesName) {
  std::string dir = PluginLibrary::builtPath().substr(0, PluginLibrary::builtPath().find_last_of('/'));
  for (const char* kind : {"net", "tuner", "env"}) {
    std::string link = dir + "/libnccl-" + kind + "-roce.so";
    PluginLibrary lib(link);
    ASSERT_TRUE(lib.loaded()) << link << ": " << lib.error();
  }
}

}  // namespace
}  // namespace nccl_roce::testing
