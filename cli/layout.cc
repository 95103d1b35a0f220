// `nccl-roce layout --tp N --pp N [--dp N] [--ep] --gpus-per-node N`: which of the job's communicators cross RoCE,
// and which of them the tuner, the profiler and the A/B loop reach (inspect/layout_reach.h).
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "inspect/layout_reach.h"

namespace nccl_roce::cli {

void addLayoutCommand(CLI::App& app, CommandContext& context) {
  auto layout = std::make_shared<inspect::Layout>();
  CLI::App* command = app.add_subcommand(
      "layout",
      "Say which of a vLLM or SGLang job's communicators cross RoCE, and which of them nccl-roce's tuner, "
      "profiler and A/B experiments reach");
  command->add_option("--tp", layout->tensorParallel, "Tensor-parallel size")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  command->add_option("--pp", layout->pipelineParallel, "Pipeline-parallel size")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  command->add_option("--dp", layout->dataParallel, "Data-parallel size")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  command->add_flag("--ep", layout->expertParallel, "Expert parallelism (vLLM's --enable-expert-parallel)");
  command->add_option("--gpus-per-node", layout->gpusPerNode, "GPUs per node")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  command->footer(
      "Ranks are laid out as vLLM and SGLang lay them: tensor parallel fastest, then pipeline, then data "
      "parallel, filling nodes in order. Exit status 0; 2 on a usage error (a layout that does not fill "
      "whole nodes included).");
  command->callback([layout, &context] {
    StatusOr<std::vector<inspect::CommunicatorReach>> reach = inspect::layoutReach(*layout);
    if (!reach.isOk()) {
      std::fprintf(stderr, "nccl-roce layout: %s\n", reach.status().message().c_str());
      context.exitCode = 2;
      return;
    }
    std::string text = inspect::layoutReachText(*layout, *reach);
    std::fwrite(text.data(), 1, text.size(), stdout);
    context.exitCode = 0;
  });
}

}  // namespace nccl_roce::cli
