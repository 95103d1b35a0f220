// nccl-roce: the operator's tool. Subcommands are registered from their own files (cli/commands.h).
#include <cstdio>
#include <exception>

#include "cli/commands.h"

namespace {
constexpr int kUsageError = 2;

int run(int argc, char** argv) {
  nccl_roce::cli::CommandContext context;
  CLI::App app{
      "nccl-roce: resolve RoCE/InfiniBand settings for NCCL, lint and explain tuner policies, "
      "parse and compare nccl-tests sweeps"};
  app.set_version_flag("--version", "nccl-roce " NCCL_ROCE_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Exit status 2 on a usage error (an unknown option, a bad value, a missing input), with the reason on "
      "stderr; each command's --help gives its other statuses.");
  nccl_roce::cli::addDetectCommand(app, context);
  nccl_roce::cli::addEnvCommand(app, context);
  nccl_roce::cli::addSnapshotCommand(app, context);
  nccl_roce::cli::addPolicyCommands(app, context);
  nccl_roce::cli::addDoctorCommand(app, context);
  nccl_roce::cli::addSweepCommands(app, context);
  nccl_roce::cli::addAbCommand(app, context);
  nccl_roce::cli::addProofCommand(app, context);
  nccl_roce::cli::addLayoutCommand(app, context);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2 with CLI11's message, whatever CLI11's own code.
    return app.exit(e) == 0 ? 0 : kUsageError;
  }
  return context.exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nccl-roce: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "nccl-roce: an unexpected error\n");
  }
  return kUsageError;
}
