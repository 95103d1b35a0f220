// Each `nccl-roce` subcommand lives in its own file and registers itself on the root app here.
// A command's callback returns its exit status through `exitCode`.
#pragma once

#include <CLI/CLI.hpp>

namespace nccl_roce::cli {

struct CommandContext {
  int exitCode = 0;
};

// cli/sweep.cc: `sweep parse|compare|fit`
void addSweepCommands(CLI::App& app, CommandContext& context);

}  // namespace nccl_roce::cli
