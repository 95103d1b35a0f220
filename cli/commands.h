// Each `nccl-roce` subcommand lives in its own file and registers itself on the root app here.
// A command's callback reports its exit status through CommandContext::exitCode.
#pragma once

#include <CLI/CLI.hpp>

namespace nccl_roce::cli {

struct CommandContext {
  int exitCode = 0;
};

// cli/detect.cc: `detect`
void addDetectCommand(CLI::App& app, CommandContext& context);
// cli/env.cc: `env`
void addEnvCommand(CLI::App& app, CommandContext& context);
// cli/snapshot.cc: `snapshot`
void addSnapshotCommand(CLI::App& app, CommandContext& context);
// cli/policy.cc: `policy lint`, `policy explain`
void addPolicyCommands(CLI::App& app, CommandContext& context);
// cli/policy_verify.cc: `policy verify`, a subcommand of `policy`
void addPolicyVerifyCommand(CLI::App& policy, CommandContext& context);
// cli/doctor_command.cc: `doctor`
void addDoctorCommand(CLI::App& app, CommandContext& context);
// cli/sweep.cc: `sweep parse|compare|fit`
void addSweepCommands(CLI::App& app, CommandContext& context);
// cli/ab.cc: `ab`
void addAbCommand(CLI::App& app, CommandContext& context);
// cli/ab_fit.cc: `ab fit`, a subcommand of `ab`
CLI::App* addAbFitCommand(CLI::App& ab, CommandContext& context);
// cli/ab_plan.cc: `ab plan`, a subcommand of `ab`
void addAbPlanCommand(CLI::App& ab, CommandContext& context);
// cli/proof.cc: `proof`
void addProofCommand(CLI::App& app, CommandContext& context);
// cli/layout.cc: `layout`
void addLayoutCommand(CLI::App& app, CommandContext& context);

}  // namespace nccl_roce::cli
