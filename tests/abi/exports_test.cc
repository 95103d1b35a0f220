// The portable-library promise of docs/contracts.md, checked on the built file: exactly the plugin tables of the
// versions NCCL releases declare are exported (the table of docs/nccl-versions.md, "Exported symbols"), and the
// only runtime dependencies are the C
// runtime's, so the .so loads on any image (no rdma-core, hwloc, CUDA or libstdc++ needed).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
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

// The rows of the table under the level-2 heading `heading` of a markdown file: first cell (a symbol, without its
// backticks) -> second cell.
std::map<std::string, std::string> symbolTable(const std::string& path, const std::string& heading) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::map<std::string, std::string> rows;
  static const std::regex row(R"(^\| `(\w+)` \| ([^|]*[^| ]) *\|)");
  bool inSection = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) inSection = line.rfind("## " + heading, 0) == 0;
    std::smatch m;
    if (inSection && std::regex_search(line, m, row)) {
      EXPECT_TRUE(rows.emplace(m[1], m[2]).second) << m[1] << " twice under " << heading;
    }
  }
  EXPECT_FALSE(rows.empty()) << "no table of symbols under \"## " << heading << "\" in " << path;
  return rows;
}

std::set<std::string> keys(const std::map<std::string, std::string>& rows) {
  std::set<std::string> out;
  for (const auto& [key, value] : rows) out.insert(key);
  return out;
}

// NCCL takes the newest version it finds, so each exported table must be one a release declares: the doc names the
// first release tag that does, for each.
TEST(Exports, ExactlyTheTablesNcclReleasesDeclare) {
  std::map<std::string, std::string> released = symbolTable(NCCL_ROCE_VERSIONS_DOC, "Exported symbols");
  for (const auto& [symbol, tag] : released) {
    EXPECT_TRUE(std::regex_match(tag, std::regex(R"(v2\.\d+\.\d+-\d+)")))
        << symbol << ": \"" << tag << "\" is no release tag";
  }
  std::set<std::string> expected = keys(released);
  auto nm = runCommand("nm -D --defined-only " + PluginLibrary::builtPath());
  ASSERT_EQ(nm.exitCode, 0) << nm.err;
  EXPECT_EQ(words(nm.out, 2), expected) << nm.out;
}

TEST(Exports, RuntimeDependenciesAreOnlyTheCRuntime) {
  auto readelf = runCommand("readelf -d " + PluginLibrary::builtPath() + " | grep NEEDED");
  ASSERT_EQ(readelf.exitCode, 0) << readelf.err;
  std::set<std::string> allowed{"[libc.so.6]",       "[libm.so.6]",  "[libdl.so.2]",
                                "[libpthread.so.0]", "[librt.so.1]", "[ld-linux-x86-64.so.2]"};
  std::set<std::string> needed = words(readelf.out, 4);
  ASSERT_FALSE(needed.empty());
  for (const auto& library : needed)
    EXPECT_EQ(allowed.count(library), 1u) << library << " must be dlopen'd, not linked";
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
