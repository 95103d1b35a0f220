// What `nccl-roce` loads before it does anything. Every library the executable names in its dynamic section
// (DT_NEEDED) is loaded and relocated, with its own dependencies, by every command before main: libcurl named
// there brought some 30 libraries (TLS, Kerberos, LDAP, HTTP/2) and 8 M instructions to `--version` and `detect`
// alike. libcurl is opened only where HTTP is spoken, at the first Prometheus query.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "tests/support/run_command.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsSubsetOf;
using ::testing::Not;

// The DT_NEEDED entries of an ELF file, as readelf -d prints them: " (NEEDED)  Shared library: [libc.so.6]".
std::vector<std::string> neededLibraries(const std::string& path) {
  CommandResult r = runCommand("readelf -d " + path);
  std::vector<std::string> out;
  std::regex needed(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), needed), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

// What the loader reports loading (LD_DEBUG=files) while `nccl-roce ARGS` runs.
std::string filesLoaded(const std::string& args) {
  return runCommand("cd " + sourcePath("") + " && LD_DEBUG=files " + cliPath() + " " + args + " 2>&1 >/dev/null").out;
}

// The C++ runtime is linked in (cmake/NcclRocePortable.cmake), so the command runs wherever the library loads.
TEST(CliStartup, NeedsTheCRuntimeOnly) {
  std::vector<std::string> needed = neededLibraries(cliPath());
  ASSERT_FALSE(needed.empty()) << "readelf -d " << cliPath() << " listed nothing";
  EXPECT_THAT(needed, IsSubsetOf({"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"}));
  for (const std::string& library : needed) EXPECT_THAT(library, Not(HasSubstr("libcurl")));
}

TEST(CliStartup, DetectEnvAndDoctorNeverLoadLibcurl) {
  const std::string snapshot = " --snapshot share/nccl-roce/examples/sriov-pod-8rail.json";
  for (const std::string command : {"detect", "env", "doctor"}) {
    std::string loaded = filesLoaded(command + snapshot);
    EXPECT_THAT(loaded, HasSubstr("file=libc.so.6")) << "LD_DEBUG gave no list for " << command;
    EXPECT_THAT(loaded, Not(HasSubstr("libcurl"))) << command;
  }
}

TEST(CliStartup, AbLoadsLibcurlAtItsFirstPrometheusQuery) {
  // Port 1 of loopback refuses at once: the query fails, after libcurl was opened for it.
  std::string loaded = filesLoaded("ab --prometheus http://127.0.0.1:1");
  EXPECT_THAT(loaded, HasSubstr("file=libcurl.so.4 [0];  dynamically loaded by"));
}

}  // namespace
}  // namespace nccl_roce::testing
