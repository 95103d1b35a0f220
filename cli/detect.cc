// `nccl-roce detect` (DESIGN.md section 3): every device port with its reason, the settings, the warnings.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/detect.h"
#include "gid/resolution_json.h"

namespace nccl_roce::cli {

namespace {

struct DetectOptions {
  MachineOptions machine;
  std::string format = "text";
};

}  // namespace

int runResolution(const MachineOptions& machine, const std::string& format) {
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
  detect->footer("Exit status 0 when at least one device port is selected; 1 otherwise (reason on stderr); 2 on a "
                 "usage error, such as a path that does not exist or a snapshot that cannot be read.");
  detect->callback([options, &context] { context.exitCode = runResolution(options->machine, options->format); });
}

}  // namespace nccl_roce::cli
