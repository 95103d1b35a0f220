// `nccl-roce sweep parse FILE... [--format json|csv]`: nccl-tests output as data (schema in docs/sweep.md).
#include <cstdio>
#include <memory>

#include "cli/exit_status.h"
#include "cli/sweep_commands.h"
#include "nccl-tests-integration/sweep/log_files.h"
#include "nccl-tests-integration/sweep/perf_log_json.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"

namespace nccl_roce::cli {

namespace {

struct ParseOptions {
  std::vector<std::string> paths;
  std::string format = "json";
  std::string output;
  bool quiet = false;
};

bool readStdin(std::string* text) {
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) {
    if (text->size() + n > sweep::kMaxLogBytes) return false;
    text->append(buffer, n);
  }
  return !std::ferror(stdin);
}

int runParse(const ParseOptions& options) {
  std::vector<sweep::PerfLog> logs;
  std::vector<SkippedEntry> skipped;
  for (const std::string& path : options.paths) {
    if (path == "-") {
      std::string text;
      if (!readStdin(&text)) {
        std::fprintf(stderr, "nccl-roce sweep parse: cannot read standard input\n");
        return kExitInputError;
      }
      logs.push_back(sweep::parsePerfLog(text, "<stdin>"));
      continue;
    }
    StatusOr<std::vector<sweep::PerfLog>> read = sweep::readPerfLogs({path}, &skipped);
    if (!read.isOk()) {
      std::fprintf(stderr, "nccl-roce sweep parse: %s\n", read.status().toString().c_str());
      return kExitInputError;
    }
    for (sweep::PerfLog& log : *read) logs.push_back(std::move(log));
  }
  std::string out;
  if (options.format == "csv") {
    out = sweep::perfLogsCsvHeader();
    for (const sweep::PerfLog& log : logs) out += sweep::perfLogToCsv(log);
  } else {
    out = sweep::dumpJson(sweep::perfLogsToJson(logs)) + "\n";
  }
  reportSkipped(skipped, "sweep parse");
  if (!writeOutput(options.output, out, "sweep parse")) return kExitUsage;
  if (!options.quiet) reportLogIssues(logs, "sweep parse");
  for (const sweep::PerfLog& log : logs) {
    bool anyRows = false;
    for (const sweep::PerfRun& run : log.runs) anyRows |= !run.rows.empty();
    if (!anyRows) return kExitInputError;  // nothing to read in it: an input error, as for every reading command
  }
  return kExitOk;
}

}  // namespace

void addSweepParseCommand(CLI::App& sweep, CommandContext& context) {
  auto options = std::make_shared<ParseOptions>();
  CLI::App* parse = sweep.add_subcommand("parse", "Read nccl-tests output (any era or layout) and print it as data");
  parse->add_option("files", options->paths, "Log files or directories of *.log/*.txt files ('-' for stdin)")
      ->required();
  parse->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"json", "csv"}))
      ->capture_default_str();
  parse->add_option("-o,--output", options->output, "Write here instead of stdout");
  parse->add_flag("-q,--quiet", options->quiet, "Do not list warnings on stderr");
  parse->footer(
      "Exit status 0 when every file holds at least one result row; 2 on a usage error or an output that cannot be "
      "written; 3 when a file cannot be read or holds no result row. Lines that are not nccl-tests output are "
      "counted and skipped; warnings go to stderr.");
  parse->callback([options, &context] { context.exitCode = runParse(*options); });
}

}  // namespace nccl_roce::cli
