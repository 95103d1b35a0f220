// `nccl-roce sweep`: parse, compare and fit nccl-tests sweeps.
#include <cstdio>

#include "cli/commands.h"
#include "cli/sweep_commands.h"
#include "common/file.h"

namespace nccl_roce::cli {

void reportLogIssues(const std::vector<sweep::PerfLog>& logs, const char* command) {
  for (const sweep::PerfLog& log : logs) {
    for (const sweep::LineNote& problem : log.problems) {
      std::fprintf(stderr, "nccl-roce %s: %s:%d: %s\n", command, log.source.c_str(), problem.line,
                   problem.text.c_str());
    }
    for (const sweep::PerfRun& run : log.runs) {
      for (const std::string& why : run.rejections) {
        std::fprintf(stderr, "nccl-roce %s: %s:%d: run not used: %s\n", command, log.source.c_str(), run.firstLine,
                     why.c_str());
      }
      for (const std::string& warning : run.warnings) {
        std::fprintf(stderr, "nccl-roce %s: %s:%d: %s\n", command, log.source.c_str(), run.firstLine, warning.c_str());
      }
    }
    if (log.runs.empty()) {
      std::fprintf(stderr, "nccl-roce %s: %s: no nccl-tests output found (%d lines, %d not understood)\n", command,
                   log.source.c_str(), log.lines.total, log.lines.unknown);
    }
  }
}

void reportSkipped(const std::vector<SkippedEntry>& skipped, const char* command) {
  for (const SkippedEntry& s : skipped) {
    std::fprintf(stderr, "nccl-roce %s: skipped %s: %s\n", command, s.path.c_str(), s.why.c_str());
  }
}

bool writeOutput(const std::string& path, const std::string& content, const char* command) {
  if (path.empty() || path == "-") {
    std::fwrite(content.data(), 1, content.size(), stdout);
    return true;
  }
  Status status = writeFileAtomically(path, content);
  if (!status.isOk()) {
    std::fprintf(stderr, "nccl-roce %s: %s\n", command, status.toString().c_str());
    return false;
  }
  return true;
}

void addSweepCommands(CLI::App& app, CommandContext& context) {
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Parse nccl-tests logs, compare two sweeps with statistics, fit a policy from forced-config sweeps");
  sweep->require_subcommand(1);
  sweep->footer("Exit status: the subcommand's (see its --help); 2 on a usage error, such as no subcommand.");
  addSweepParseCommand(*sweep, context);
  addSweepCompareCommand(*sweep, context);
  addSweepFitCommand(*sweep, context);
}

}  // namespace nccl_roce::cli
