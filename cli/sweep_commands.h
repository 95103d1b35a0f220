// `nccl-roce sweep ...`: the evidence loop over nccl-tests logs (docs/sweep.md). Each verb has its own file.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/directory_walk.h"
#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::cli {

void addSweepParseCommand(CLI::App& sweep, CommandContext& context);    // cli/sweep_parse.cc
void addSweepCompareCommand(CLI::App& sweep, CommandContext& context);  // cli/sweep_compare.cc
void addSweepFitCommand(CLI::App& sweep, CommandContext& context);      // cli/sweep_fit.cc

// Prints each file's problems and each run's rejections and warnings to stderr, one line each,
// prefixed with the file name and the run's first line.
void reportLogIssues(const std::vector<sweep::PerfLog>& logs, const char* command);

// Names each entry of a directory given that was not read (a link, a FIFO: sweep::expandLogPaths) on stderr, one
// line each: "nccl-roce COMMAND: skipped PATH: why".
void reportSkipped(const std::vector<SkippedEntry>& skipped, const char* command);

// Writes `content` to `path`, or to stdout when path is empty or "-". Returns false (after a message
// on stderr) when the file cannot be written.
bool writeOutput(const std::string& path, const std::string& content, const char* command);

}  // namespace nccl_roce::cli
