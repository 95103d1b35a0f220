// nccl-roce: the operator's tool. Subcommands are registered from their own files (cli/commands.h).
#include <cstdio>
#include <exception>

#include "cli/commands.h"

int main(int argc, char** argv) {
  nccl_roce::cli::CommandContext context;
  CLI::App app{"nccl-roce: resolve RoCE/InfiniBand settings for NCCL, lint and explain tuner policies, "
               "parse and compare nccl-tests sweeps"};
  app.set_version_flag("--version", "nccl-roce " NCCL_ROCE_VERSION);
  app.require_subcommand(1);
  nccl_roce::cli::addDetectCommand(app, context);
  nccl_roce::cli::addEnvCommand(app, context);
  nccl_roce::cli::addSnapshotCommand(app, context);
  nccl_roce::cli::addPolicyCommands(app, context);
  nccl_roce::cli::addDoctorCommand(app, context);
  nccl_roce::cli::addSweepCommands(app, context);
  nccl_roce::cli::addAbCommand(app, context);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nccl-roce: %s\n", e.what());
    return 2;
  }
  return context.exitCode;
}
