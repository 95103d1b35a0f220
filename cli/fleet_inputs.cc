#include "cli/fleet_inputs.h"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "common/directory_walk.h"
#include "common/file.h"
#include "common/strings.h"
#include "fleet/fleet_files.h"
#include "fleet/prometheus_reader.h"

namespace nccl_roce::cli {

namespace {

constexpr size_t kMaxStatisticsBytes = size_t{1} << 30;

bool isDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Names of files that can hold statistics or Inspector records.
DirectoryWalk statisticsWalk() {
  DirectoryWalk walk;
  walk.wanted = [](const std::string& name) {
    return endsWith(name, ".json") || endsWith(name, ".jsonl") || endsWith(name, ".log");
  };
  return walk;
}

// The directory a glob's matches are found beneath: its components before the first with a wildcard ("DIR" for
// "DIR/*/stats.*.json"), so no link a match passes through below it is followed.
std::string globRoot(const std::string& pattern) {
  size_t wildcard = pattern.find_first_of("*?[");
  size_t slash = pattern.rfind('/', wildcard);
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : pattern.substr(0, slash);
}

// A glob's match beneath its root ("DIR/a/stats.1.json" beneath "DIR": "a/stats.1.json").
std::string relativeTo(const std::string& root, const std::string& match) {
  if (root == "/") return match.substr(1);
  if (startsWith(match, root + "/")) return match.substr(root.size() + 1);
  return match;  // beneath ".", as glob writes it: "stats.1.json"
}

struct Expanded {
  std::vector<FoundFile> files;
  std::vector<SkippedEntry> skipped;
};

void add(StatusOr<WalkResult> walked, const std::string& what, Expanded& out) {
  if (!walked.isOk()) {  // a match that vanished, or that lies beyond a link: what it holds could be statistics
    out.skipped.push_back({what, walked.status().message(), /*link=*/true});
    return;
  }
  out.files.insert(out.files.end(), walked->files.begin(), walked->files.end());
  out.skipped.insert(out.skipped.end(), walked->skipped.begin(), walked->skipped.end());
}

// Files as named (links followed: the user chose them), directories walked (recursively, 8 levels) and quoted
// globs matched, each match read beneath the glob's directory (docs/security.md); sorted, each once.
Expanded expandInputs(const std::vector<std::string>& inputs) {
  Expanded out;
  for (const std::string& input : inputs) {
    glob_t matches{};
    // NOLINTNEXTLINE(concurrency-mt-unsafe): the command is single-threaded
    if (input.find_first_of("*?[") != std::string::npos && ::glob(input.c_str(), 0, nullptr, &matches) == 0) {
      std::string root = globRoot(input);
      for (size_t i = 0; i < matches.gl_pathc; ++i) {
        std::string match = matches.gl_pathv[i];
        add(walkDirectory(root, statisticsWalk(), relativeTo(root, match)), match, out);
      }
    } else if (isDirectory(input)) {
      add(walkDirectory(input, statisticsWalk()), input, out);
    } else {
      out.files.push_back({"", input});
    }
    ::globfree(&matches);
  }
  std::sort(out.files.begin(), out.files.end());
  out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
  return out;
}

}  // namespace

StatusOr<fleet::Fleet> readFleet(const std::vector<std::string>& inputs, const std::string& experiment,
                                 bool skipUnreadable) {
  Expanded expanded = expandInputs(inputs);
  fleet::FleetReader reader;
  if (expanded.files.empty()) {
    std::string skipped;
    for (const SkippedEntry& s : expanded.skipped) skipped += "; skipped " + s.path + ": " + s.why;
    return Status(StatusCode::kNotFound, "no statistics file found in the inputs given" + skipped);
  }
  // What a directory held that is not a file to read: named, never opened. A link may point at statistics, so it is
  // an input error for the gates; a FIFO, a socket or a device cannot hold any.
  for (const SkippedEntry& s : expanded.skipped) reader.skip(s.path, s.why, /*error=*/s.link);
  for (const FoundFile& found : expanded.files) {
    const std::string file = found.path();
    StatusOr<std::string> text = readFoundFile(found, kMaxStatisticsBytes);
    Status added = text.isOk() ? reader.add(file, *text) : text.status();
    if (added.isOk()) continue;
    if (added.code() == StatusCode::kNotFound) return added;  // a path mistyped, not a file damaged
    if (!skipUnreadable) {
      return Status(added.code(), added.message() +
                                      ": re-copy it from its pod, or move it aside; --skip-unreadable leaves such "
                                      "files out and lists them (--strict and --fail-on-slower then exit 3)");
    }
    // The message names the file already; the listing names it again.
    std::string why = added.message();
    if (startsWith(why, file + ": ")) why = why.substr(file.size() + 2);
    reader.skipUnreadable(file, why + ": re-copy it from its pod");
  }
  return reader.assemble(experiment);
}

void addFleetSourceOptions(CLI::App& command, FleetSource& source, const std::string& statsHelp) {
  command.add_option("STATS", source.inputs, statsHelp);
  command.add_flag("--strict", source.strict,
                   "Exit 3 on any input error (a communicator whose ranks disagree, a file skipped as unreadable) and "
                   "on any input not read whole (an empty file, a dump's cut-short last record)");
  command.add_flag("--skip-unreadable", source.skipUnreadable,
                   "List a file that cannot be read or fails its checks (a copy cut short, a hand edit) as skipped and "
                   "go on, instead of exit 3; --strict and --fail-on-slower still exit 3 on it");
  command.add_option("--experiment", source.selection.experiment,
                     "Only this experiment's statistics, by name or by its experiment_hash (needed when the inputs "
                     "hold several)");
  command.add_option("--prometheus", source.prometheus.url,
                     "Read the fleet from this Prometheus (or Thanos, Mimir, VictoriaMetrics) query API instead of "
                     "files: the series NCCL_ROCE_METRICS textfiles carry, e.g. http://prometheus:9090");
  command
      .add_option("--window", source.selection.window,
                  "With --prometheus: each series' last sample within this long before now counts (a PromQL "
                  "duration: 30m, 6h, 2d)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& window) {
            return fleet::isPromDuration(window) ? std::string()
                                                 : "'" + window + "' is not a Prometheus duration such as 30m, 6h, 2d";
          },
          "DURATION"));
  command.add_option("--prometheus-header", source.prometheus.headers,
                     "With --prometheus: an HTTP header 'Name: value' sent with every query (repeatable), e.g. "
                     "'X-Scope-OrgID: serving' for Mimir or 'Authorization: Bearer TOKEN'");
}

void requireOneFleetSource(const FleetSource& source) {
  if (source.inputs.empty() && source.prometheus.url.empty()) throw CLI::RequiredError("STATS or --prometheus");
  if (!source.inputs.empty() && !source.prometheus.url.empty()) {
    throw CLI::ValidationError("STATS", "give statistics files or --prometheus, not both");
  }
  if (source.prometheus.url.empty() &&
      (source.selection.window != fleet::PrometheusSelection().window || !source.prometheus.headers.empty())) {
    throw CLI::ValidationError("--window and --prometheus-header", "apply only with --prometheus");
  }
  // Prometheus has no files: its series are the plugin's own, or the query fails.
  if (!source.prometheus.url.empty() && source.skipUnreadable) {
    throw CLI::ValidationError("--skip-unreadable", "applies only to STATS files");
  }
}

StatusOr<fleet::Fleet> readFleet(const FleetSource& source) {
  if (source.prometheus.url.empty())
    return readFleet(source.inputs, source.selection.experiment, source.skipUnreadable);
  return fleet::readPrometheusFleet(fleet::prometheusOverHttp(source.prometheus), source.selection);
}

void printLeftOut(const fleet::Fleet& fleet, const char* command) {
  for (const std::string& e : fleet.errors) std::fprintf(stderr, "nccl-roce %s: error: %s\n", command, e.c_str());
  for (const fleet::SkippedInput& s : fleet.skipped) {
    std::fprintf(stderr, "nccl-roce %s: skipped %s: %s\n", command, s.file.c_str(), s.why.c_str());
  }
}

bool gateRefusesInputs(const fleet::Fleet& fleet, bool strict, bool failOnSlower, const char* command) {
  size_t skipped = 0;
  if (strict || failOnSlower) {
    for (const fleet::SkippedInput& s : fleet.skipped) skipped += strict || s.error;
  }
  if (fleet.errors.empty() && skipped == 0) return false;
  std::string what;
  if (!fleet.errors.empty()) what = std::to_string(fleet.errors.size()) + " communicator(s) left out";
  if (skipped > 0) what += (what.empty() ? "" : " and ") + std::to_string(skipped) + " input(s) skipped";
  std::string remedy = skipped == 0 ? "each line above says what to do"
                                    : "each line above says what to do; to leave out files that are not statistics, "
                                      "name only the statistics files (a quoted glob such as 'DIR/*/stats.*.json')";
  const char* why = strict         ? "--strict wants every input read whole and every communicator counted"
                    : failOnSlower ? "--fail-on-slower never passes a gate on input errors"
                                   : "ranks that disagree on their arm are an input error (such a job hangs)";
  std::fprintf(stderr, "nccl-roce %s: %s (above): exit 3, %s; %s\n", command, what.c_str(), why, remedy.c_str());
  return true;
}

}  // namespace nccl_roce::cli
