// libnccl-roce.so must load into serving images older than the build machine: glibc 2.34 and later (RHEL/UBI
// 9, Ubuntu 22.04, Debian 12), and the nccl-roce command the wheel carries must run there too. These tests pin
// the floor (NCCL_ROCE_GLIBC_FLOOR, cmake/NcclRocePortable.cmake) on the built library and command and check the
// stand-ins that hold it (plugin/glibc_floor.cc): the object lookup answers as glibc's own _dl_find_object does,
// and exceptions still unwind inside a library linked that way.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "plugin/glibc_floor.h"
#include "tests/support/run_command.h"

namespace nccl_roce::testing {
namespace {

// NCCL_ROCE_GLIBC_FLOOR: the .deb's libc6 (>= 2.34) and the wheel's manylinux_2_34 follow from it.
constexpr int kFloorMajor = NCCL_ROCE_GLIBC_FLOOR_MAJOR;
constexpr int kFloorMinor = NCCL_ROCE_GLIBC_FLOOR_MINOR;

__attribute__((noinline)) int functionInThisExecutable(int x) {
  return x * 3 + 1;
}

class UnwindProbe {
 public:
  UnwindProbe() : handle_(::dlopen(NCCL_ROCE_UNWIND_PROBE, RTLD_NOW | RTLD_LOCAL)) {}
  ~UnwindProbe() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  void* symbol(const char* name) const { return handle_ ? ::dlsym(handle_, name) : nullptr; }
  bool loaded() const { return handle_ != nullptr; }

 private:
  void* handle_;
};

// Every GLIBC_x.y version the file's dynamic symbols reference.
std::vector<std::pair<int, int>> glibcVersionsReferencedBy(const std::string& file) {
  CommandResult dump = runCommand("objdump -T " + file);
  EXPECT_EQ(dump.exitCode, 0) << dump.err;
  std::vector<std::pair<int, int>> versions;
  std::regex version(R"(GLIBC_(\d+)\.(\d+))");
  for (std::sregex_iterator it(dump.out.begin(), dump.out.end(), version), end; it != end; ++it) {
    versions.emplace_back(std::stoi((*it)[1]), std::stoi((*it)[2]));
  }
  return versions;
}

TEST(GlibcFloor, ThePluginReferencesNoGlibcNewerThanTheDeclaredFloor) {
  auto versions = glibcVersionsReferencedBy(NCCL_ROCE_PLUGIN_LIBRARY);
  ASSERT_FALSE(versions.empty());
  for (const auto& [major, minor] : versions) {
    EXPECT_LE(std::make_pair(major, minor), std::make_pair(kFloorMajor, kFloorMinor))
        << "GLIBC_" << major << "." << minor << ": the plugin would not load on glibc " << kFloorMajor << "."
        << kFloorMinor << " (RHEL/UBI 9); see plugin/glibc_floor.cc";
  }
}

TEST(GlibcFloor, TheCommandReferencesNoGlibcNewerThanTheDeclaredFloor) {
  auto versions = glibcVersionsReferencedBy(NCCL_ROCE_COMMAND);
  ASSERT_FALSE(versions.empty());
  for (const auto& [major, minor] : versions) {
    EXPECT_LE(std::make_pair(major, minor), std::make_pair(kFloorMajor, kFloorMinor))
        << "GLIBC_" << major << "." << minor << ": nccl-roce would not run on glibc " << kFloorMajor << "."
        << kFloorMinor << ", where the library loads (cmake/NcclRocePortable.cmake)";
  }
}

TEST(GlibcFloor, TheCommandCarriesItsCxxRuntime) {
  CommandResult dynamic = runCommand(std::string("readelf -d ") + NCCL_ROCE_COMMAND);
  ASSERT_EQ(dynamic.exitCode, 0) << dynamic.err;
  EXPECT_THAT(dynamic.out, ::testing::Not(::testing::HasSubstr("libstdc++")));
  EXPECT_THAT(dynamic.out, ::testing::Not(::testing::HasSubstr("libgcc_s")));
}

TEST(GlibcFloor, TheRuntimeSymbolsOfNewerGlibcAreServedInside) {
  for (const char* file : {NCCL_ROCE_PLUGIN_LIBRARY, NCCL_ROCE_UNWIND_PROBE, NCCL_ROCE_COMMAND}) {
    CommandResult undefined = runCommand(std::string("nm -D --undefined-only ") + file);
    ASSERT_EQ(undefined.exitCode, 0) << undefined.err;
    EXPECT_THAT(undefined.out, ::testing::Not(::testing::HasSubstr("_dl_find_object"))) << file;
    EXPECT_THAT(undefined.out, ::testing::Not(::testing::HasSubstr("arc4random"))) << file;
  }
}

TEST(GlibcFloor, ExceptionsUnwindInsideALibraryLinkedForTheFloor) {
  UnwindProbe probe;
  ASSERT_TRUE(probe.loaded()) << ::dlerror();
  auto catches = reinterpret_cast<int (*)(int)>(probe.symbol("nccl_roce_probe_catches"));
  ASSERT_NE(catches, nullptr);
  for (int depth : {0, 1, 8, 64}) EXPECT_EQ(catches(depth), 1) << "thrown " << depth << " frames down";
}

TEST(GlibcFloor, TheObjectLookupFindsTheUnwindTablesGlibcWouldGive) {
#ifndef DLFO_STRUCT_HAS_EH_DBASE
  GTEST_SKIP() << "this glibc has no _dl_find_object to compare with (< 2.35)";
#else
  UnwindProbe probe;
  ASSERT_TRUE(probe.loaded()) << ::dlerror();
  int onTheStack = 0;
  struct Case {
    const char* what;
    void* pc;
  };
  std::vector<Case> cases{
      {"this executable", reinterpret_cast<void*>(&functionInThisExecutable)},
      {"libc", ::dlsym(RTLD_DEFAULT, "getpid")},
      {"a dlopen'd library", probe.symbol("nccl_roce_probe_catches")},
      {"the stack (no object)", &onTheStack},
      {"null", nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    NcclRoceFoundObject ours{};
    struct dl_find_object glibcs {};
    int ourResult = nccl_roce_find_object(c.pc, &ours);
    int glibcResult = _dl_find_object(c.pc, &glibcs);
    ASSERT_EQ(ourResult, glibcResult);
    if (ourResult != 0) continue;
    EXPECT_EQ(ours.ehFrameHdr, glibcs.dlfo_eh_frame) << "the one field the unwinder reads";
    auto pc = reinterpret_cast<uintptr_t>(c.pc);
    EXPECT_LE(reinterpret_cast<uintptr_t>(ours.mapStart), pc);
    EXPECT_GT(reinterpret_cast<uintptr_t>(ours.mapEnd), pc);
    EXPECT_EQ(ours.mapEnd, glibcs.dlfo_map_end);
  }
#endif
}

}  // namespace
}  // namespace nccl_roce::testing
