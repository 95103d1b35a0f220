// `nccl-roce detect` (docs/contracts.md): every device port with its reason, the settings, the warnings.
#include "cli/detect.h"

#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/commands.h"
#include "gid/resolution_json.h"

namespace nccl_roce::cli {

namespace {

struct DetectOptions {
  MachineOptions machine;
  std::string format = "text";
};

constexpr const char* kExampleMachine = "sriov-pod-8rail.json";

// The example machine the package ships (share/nccl-roce/examples/), found from this executable: PREFIX/bin in the
// .deb or a tarball, BUILD/cli in a build tree inside the source tree. Empty when neither holds it.
std::string bundledExampleMachine() {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "";
  std::string directory(self, static_cast<size_t>(n));
  directory.erase(directory.find_last_of('/'));
  for (const char* up : {"/../share/nccl-roce/examples/", "/../../share/nccl-roce/examples/"}) {
    char resolved[PATH_MAX];
    if (::realpath((directory + up + kExampleMachine).c_str(), resolved) != nullptr) return resolved;
  }
  return "";
}

// A machine without RDMA devices (a laptop, a CI runner, a pod without the RDMA device plugin) resolves nothing; the
// bundled example shows what this command reports on a RoCE pod (README.md, "Set-up").
void suggestExample(const std::string& command) {
  std::string example = bundledExampleMachine();
  std::string path = example.empty() ? "share/nccl-roce/examples/" + std::string(kExampleMachine) : example;
  std::fprintf(stderr,
               "nccl-roce: to see what %s reports on a RoCE pod (8 SR-IOV rails), replay the bundled example machine: "
               "nccl-roce %s --snapshot %s\n",
               command.c_str(), command.c_str(), path.c_str());
}

}  // namespace

int runResolution(const MachineOptions& machine, const std::string& format, const std::string& command) {
  std::string error;
  auto sources = MachineSources::open(machine, &error);
  if (!sources) {
    std::fprintf(stderr, "nccl-roce: %s\n", error.c_str());
    return 2;
  }
  gid::Resolution r = sources->resolve();
  std::string out;
  if (format == "json") {
    out = gid::dumpJson(gid::resolutionToJson(r)) + "\n";
  } else if (format == "env") {
    out = gid::resolutionToShell(r);
  } else {
    out = gid::resolutionToText(r);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (!r.anySelected()) {
    std::fprintf(stderr, "nccl-roce: %s\n", r.error.c_str());
    if (r.ports.empty() && machine.snapshot.empty()) suggestExample(command);
    return 1;
  }
  return 0;
}

void addDetectCommand(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DetectOptions>();
  CLI::App* detect = app.add_subcommand(
      "detect", "Resolve which RDMA devices and ports this pod can use and which RoCE v2 GID each needs");
  options->machine.addTo(*detect, /*withSnapshot=*/true);
  detect->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "env"}))
      ->capture_default_str();
  detect->footer(
      "Exit status 0 when at least one device port is selected; 1 otherwise (reason on stderr); 2 on a "
      "usage error, such as a path that does not exist or a snapshot that cannot be read.");
  detect->callback(
      [options, &context] { context.exitCode = runResolution(options->machine, options->format, "detect"); });
}

}  // namespace nccl_roce::cli
