// `nccl-roce detect` (DESIGN.md section 3) and `nccl-roce env` (export lines for a pod entrypoint:
// NVSHMEM, UCX and NIXL do not load NCCL plugins, so they get the same resolution this way).
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/machine_options.h"
#include "gid/resolution_json.h"

namespace nccl_roce::cli {

namespace {

struct DetectOptions {
  MachineOptions machine;
  std::string format = "text";
};

int runDetect(const DetectOptions& options) {
  std::string error;
  auto sources = MachineSources::open(options.machine, &error);
  if (!sources) {
    std::fprintf(stderr, "nccl-roce detect: %s\n", error.c_str());
    return 2;
  }
  gid::Resolution r = sources->resolve();
  std::string out;
  if (options.format == "json") {
    out = gid::dumpJson(gid::resolutionToJson(r)) + "\n";
  } else if (options.format == "env") {
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

}  // namespace

void addDetectCommands(CLI::App& app, CommandContext& context) {
  auto detectOptions = std::make_shared<DetectOptions>();
  CLI::App* detect = app.add_subcommand(
      "detect", "Resolve which RDMA devices and ports this pod can use and which RoCE v2 GID each needs");
  detectOptions->machine.addTo(*detect, /*withSnapshot=*/true);
  detect->add_option("--format", detectOptions->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "env"}))
      ->capture_default_str();
  detect->footer("Exit status 0 when at least one device port is selected; 1 otherwise (reason on stderr).");
  detect->callback([detectOptions, &context] { context.exitCode = runDetect(*detectOptions); });

  auto envOptions = std::make_shared<DetectOptions>();
  envOptions->format = "env";
  CLI::App* env = app.add_subcommand(
      "env", "Print 'export' lines of the resolved settings, for eval in a pod entrypoint");
  envOptions->machine.addTo(*env, /*withSnapshot=*/true);
  env->footer("Usage in an entrypoint: eval \"$(nccl-roce env)\". Variables already set are kept and shown as "
              "comments.");
  env->callback([envOptions, &context] { context.exitCode = runDetect(*envOptions); });
}

}  // namespace nccl_roce::cli
