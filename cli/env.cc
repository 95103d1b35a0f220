// `nccl-roce env`: the resolution as `export` lines for a pod entrypoint. NVSHMEM, UCX and NIXL do not load
// NCCL plugins, so this is how they get the same devices and GIDs the plugin gives NCCL.
#include <memory>

#include "cli/commands.h"
#include "cli/detect.h"

namespace nccl_roce::cli {

void addEnvCommand(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<MachineOptions>();
  CLI::App* env =
      app.add_subcommand("env", "Print 'export' lines of the resolved settings, for eval in a pod entrypoint");
  options->addTo(*env, /*withSnapshot=*/true);
  env->footer(
      "Usage in an entrypoint: eval \"$(nccl-roce env)\". Variables already set are kept and shown as "
      "comments, with what would have been set; warnings are comments too. Exit status 0 when at least one device port "
      "is selected; 1 otherwise (reason on stderr); 2 "
      "on a usage error.");
  env->callback([options, &context] { context.exitCode = runResolution(*options, "env", "env"); });
}

}  // namespace nccl_roce::cli
