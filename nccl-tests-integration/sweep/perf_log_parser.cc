#include "nccl-tests-integration/sweep/perf_log_parser.h"

#include <optional>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "inspect/nccl_log_line.h"
#include "nccl-tests-integration/sweep/header_lines.h"
#include "nccl-tests-integration/sweep/log_text.h"
#include "nccl-tests-integration/sweep/run_checks.h"
#include "nccl-tests-integration/sweep/table_layout.h"

namespace nccl_roce::sweep {

namespace {

constexpr size_t kMaxUnknownExamples = 5;
constexpr size_t kMaxProblems = 50;

bool hasStarted(const PerfRun& run) {
  return run.parameters.threads || !run.devices.empty() || !run.rows.empty() || run.footer || !run.columns.empty();
}

bool isDecoration(std::string_view body) {
  static const std::string_view kStarts[] = {
      "(B)",
      "Using devices",
      "Blocking Enabled",
      "Per-Iteration Report",
      "Parallel Init Enabled",
      "Writing JSON output",
      "skipping json output",
      "GPU memory usage",
  };
  if (body.empty()) return true;
  for (std::string_view s : kStarts) {
    if (startsWith(body, s)) return true;
  }
  return body.find("out-of-place") != std::string_view::npos;
}

// The value after "name :" in footer lines ("Out of bounds values : 0 OK").
std::vector<std::string_view> afterColon(std::string_view body) {
  size_t colon = body.find(':');
  return colon == std::string_view::npos ? std::vector<std::string_view>() : splitFields(body.substr(colon + 1));
}

class Parser {
 public:
  explicit Parser(const std::string& source) { log_.source = source; }

  void line(std::string_view raw) {
    ++lineNo_;
    ++log_.lines.total;
    std::string cleaned = stripLauncherTags(raw);
    std::string_view text = trim(cleaned);
    if (text.empty()) {
      ++log_.lines.blank;
      return;
    }
    std::vector<std::string_view> fields = splitFields(text);
    if (text[0] == '#') {
      if (headerLine(trim(text.substr(1)), fields)) {
        ++log_.lines.header;
      } else {
        unknown(text);
      }
      return;
    }
    if (std::optional<inspect::NcclLogLine> logLine = inspect::parseNcclLogLine(text)) {
      ++log_.lines.ncclLog;
      ncclLog(text, logLine->message);
      return;
    }
    if (startsWith(text, "NCCL version ") || startsWith(text, "RCCL version ")) {
      ++log_.lines.ncclLog;
      ncclLog(text, text);
      return;
    }
    if (startsWith(text, "nThread ") && headerLine(text, fields)) {  // 2017: no '#'
      ++log_.lines.header;
      return;
    }
    if (looksLikeRow(fields)) {
      row(text, fields);
      return;
    }
    unknown(text);
  }

  PerfLog finish() {
    std::vector<PerfRun> kept;
    for (PerfRun& run : log_.runs) {
      if (!hasStarted(run)) continue;  // only stray NCCL lines or runner lines with nothing after them
      finalizeRun(run);
      kept.push_back(std::move(run));
    }
    log_.runs = std::move(kept);
    return std::move(log_);
  }

 private:
  PerfRun& current() {
    if (log_.runs.empty() || !open_) newRun(false);
    PerfRun& run = log_.runs.back();
    run.lastLine = lineNo_;
    return run;
  }

  PerfRun& newRun(bool inheritHeader) {
    PerfRun run;
    if (inheritHeader && !log_.runs.empty()) {
      const PerfRun& previous = log_.runs.back();
      run.collective = previous.collective;
      run.collectiveSource = previous.collectiveSource;
      run.testsVersion = previous.testsVersion;
      run.ncclVersion = previous.ncclVersion;
      run.ncclVersionDetail = previous.ncclVersionDetail;
      run.parameters = previous.parameters;
      run.devices = previous.devices;
      run.environment = previous.environment;
      run.command = previous.command;
      run.columns = previous.columns;
      run.cpuTime = previous.cpuTime;
    }
    run.firstLine = run.lastLine = lineNo_;
    log_.runs.push_back(std::move(run));
    open_ = true;
    return log_.runs.back();
  }

  void ncclLog(std::string_view text, std::string_view message) {
    PerfRun& run = current();
    if (std::optional<std::string_view> version = inspect::findNcclVersion(text)) {
      run.ncclVersionDetail = std::string(*version);
      run.ncclVersion = std::string(inspect::ncclRelease(*version));
    }
    if (auto setting = parseSetByEnvironment(message)) run.environment[setting->first] = setting->second;
  }

  // Returns false when the line is not one nccl-tests (or our runner) writes.
  bool headerLine(std::string_view body, const std::vector<std::string_view>& fields) {
    if (startsWith(body, "nccl-roce-env:") || startsWith(body, "nccl-roce-cmd:")) return runnerLine(body);
    if (startsWith(body, "nccl-tests version ")) {
      testsVersionLine(body);
      return true;
    }
    if (startsWith(body, "Collective test starting:")) {
      collectiveStartingLine(body);
      return true;
    }
    if (startsWith(body, "Collective test concluded:")) {
      current().concluded = true;
      open_ = false;
      return true;
    }
    if (std::optional<RunParameters> parameters = parseParameterLine(body)) {
      if (!open_ || hasStarted(current())) newRun(false);
      current().parameters = *parameters;
      return true;
    }
    if (std::optional<DeviceLine> device = parseDeviceLine(body)) {
      if (!open_ || !current().rows.empty() || current().footer) newRun(false);
      current().devices.push_back(std::move(*device));
      return true;
    }
    if (startsWith(body, "Reducing maxBytes to ")) {
      std::vector<std::string_view> f = splitFields(body);
      if (f.size() > 3) current().reducedMaxBytes = parseUnsigned(f[3]);
      return true;
    }
    if (std::optional<TableLayout> layout = TableLayout::fromHeader(fields)) {
      tableHeaderLine(std::move(*layout));
      return true;
    }
    if (footerLine(body)) return true;
    if (startsWith(body, "error:")) {
      current().warnings.push_back("nccl-tests reported: " + shorten(body.substr(6)));
      return true;
    }
    return isDecoration(body);
  }

  // "nccl-roce-env: NAME=value" and "nccl-roce-cmd: ...", which our runner writes before a run's own output: they
  // open a run unless the open one has nothing of nccl-tests' yet. False when an env line has no NAME=.
  bool runnerLine(std::string_view body) {
    if (!open_ || hasStarted(current()) || !current().testsVersion.empty() || !current().collective.empty()) {
      newRun(false);
    }
    std::string_view value = trim(body.substr(14));
    if (startsWith(body, "nccl-roce-cmd:")) {
      current().command = std::string(value);
    } else {
      size_t eq = value.find('=');
      if (eq == std::string_view::npos || eq == 0) return false;
      current().environment[std::string(value.substr(0, eq))] = std::string(value.substr(eq + 1));
    }
    return true;
  }

  // "nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902". An "NCCL version" line, when there is one,
  // wins over the version nccl-library= encodes.
  void testsVersionLine(std::string_view body) {
    if (!open_ || hasStarted(current()) || !current().testsVersion.empty() ||
        current().collectiveSource == CollectiveSource::kPrinted) {
      newRun(false);
    }
    PerfRun& run = current();
    std::vector<std::string_view> f = splitFields(body);
    run.testsVersion = f.size() > 2 ? std::string(f[2]) : "";
    for (std::string_view word : f) {
      if (startsWith(word, "nccl-library=") && run.ncclVersion.empty()) {
        if (auto code = parseSigned(word.substr(13))) run.ncclVersion = ncclVersionFromCode(*code);
      }
    }
  }

  // "Collective test starting: all_reduce_perf": the collective as nccl-tests names it.
  void collectiveStartingLine(std::string_view body) {
    if (!open_ || hasStarted(current()) || current().collectiveSource == CollectiveSource::kPrinted) {
      newRun(false);
    }
    PerfRun& run = current();
    run.collective = collectiveFromProgram(trim(body.substr(25)));
    if (!run.collective.empty()) run.collectiveSource = CollectiveSource::kPrinted;
  }

  // A table header after rows or a footer starts the next run, which keeps the previous one's header lines.
  void tableHeaderLine(TableLayout layout) {
    if (!open_ || !current().rows.empty() || current().footer) newRun(true);
    PerfRun& run = current();
    run.columns = layout.names;
    run.cpuTime = layout.cpuTime;
    layout_ = std::move(layout);
  }

  // "Out of bounds values : 0 OK" and "Avg bus bandwidth : 41.2" after a run's table; false for any other line.
  bool footerLine(std::string_view body) {
    if (startsWith(body, "Out of bounds values")) {
      PerfRun& run = runWithFooter();
      std::vector<std::string_view> f = afterColon(body);
      if (!f.empty()) run.footer->outOfBounds = parseSigned(f[0]);
      if (f.size() > 1) run.footer->outOfBoundsOk = f[1] == "OK";
      return true;
    }
    if (startsWith(body, "Avg bus bandwidth")) {
      PerfRun& run = runWithFooter();
      std::vector<std::string_view> f = afterColon(body);
      if (!f.empty()) run.footer->avgBusBwGBs = parseDecimal(f[0]);
      if (f.size() > 1 && f[1] == "FAILED") {
        run.warnings.push_back("nccl-tests: average bus bandwidth below NCCL_TESTS_MIN_BW");
      }
      return true;
    }
    return false;
  }

  PerfRun& runWithFooter() {
    PerfRun& run = current();
    if (!run.footer) run.footer.emplace();
    return run;
  }

  void row(std::string_view text, const std::vector<std::string_view>& fields) {
    if (!log_.runs.empty() && (!open_ || log_.runs.back().footer)) {
      newRun(true).warnings.push_back("line " + std::to_string(lineNo_) +
                                      ": result rows after the end of the previous table");
    }
    if (!layout_) {
      layout_ = TableLayout::standard();
      current().warnings.push_back("line " + std::to_string(lineNo_) +
                                   ": result rows before any table header; read with the 2022+ column layout");
      if (current().columns.empty()) current().columns = layout_->names;
    }
    std::string error;
    std::optional<PerfRow> parsed = parseRow(*layout_, fields, &error);
    if (!parsed) {
      ++log_.lines.malformed;
      problem(error + ": " + shorten(text));
      return;
    }
    ++log_.lines.rows;
    parsed->line = lineNo_;
    current().rows.push_back(std::move(*parsed));
  }

  void unknown(std::string_view text) {
    ++log_.lines.unknown;
    if (log_.unknownExamples.size() < kMaxUnknownExamples) log_.unknownExamples.push_back({lineNo_, shorten(text)});
  }

  void problem(std::string message) {
    if (log_.problems.size() < kMaxProblems) log_.problems.push_back({lineNo_, std::move(message)});
  }

  PerfLog log_;
  bool open_ = false;
  std::optional<TableLayout> layout_;
  int lineNo_ = 0;
};

}  // namespace

PerfLog parsePerfLog(std::string_view text, const std::string& source) noexcept {
  try {
    Parser parser(source);
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      parser.line(text.substr(start, end - start));
      start = end + 1;
    }
    return parser.finish();
  } catch (...) {  // only std::bad_alloc can get here; give back an empty result that says so
    PerfLog failed;
    try {
      failed.source = source;
      failed.problems.push_back({0, "out of memory while parsing"});
    } catch (...) {
    }
    return failed;
  }
}

}  // namespace nccl_roce::sweep
