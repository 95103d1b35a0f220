#include "cli/fleet_inputs.h"

#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/file.h"
#include "common/strings.h"
#include "fleet/fleet_files.h"
#include "fleet/prometheus_reader.h"

namespace nccl_roce::cli {

namespace {

bool isDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Files under a directory (recursively) that can hold statistics or Inspector records.
void listFiles(const std::string& dir, std::vector<std::string>& out) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string path = dir + "/" + name;
    if (isDirectory(path)) {
      listFiles(path, out);
    } else if (endsWith(name, ".json") || endsWith(name, ".jsonl") || endsWith(name, ".log")) {
      out.push_back(path);
    }
  }
  ::closedir(d);
}

// Files, directories and (quoted) globs, expanded, sorted, each once.
std::vector<std::string> expandInputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    glob_t matches{};
    if (input.find_first_of("*?[") != std::string::npos && ::glob(input.c_str(), 0, nullptr, &matches) == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) {
        std::string path = matches.gl_pathv[i];
        isDirectory(path) ? listFiles(path, files) : files.push_back(path);
      }
    } else {
      isDirectory(input) ? listFiles(input, files) : files.push_back(input);
    }
    ::globfree(&matches);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

}  // namespace

StatusOr<fleet::Fleet> readFleet(const std::vector<std::string>& inputs, bool strict) {
  std::vector<std::string> files = expandInputs(inputs);
  if (files.empty()) return Status(StatusCode::kNotFound, "no statistics file found in the inputs given");
  fleet::FleetReader reader;
  for (const std::string& file : files) {
    StatusOr<std::string> text = readFileBounded(file, size_t{1} << 30);
    if (!text.isOk()) return text.status();
    Status added = reader.add(file, *text);
    if (!added.isOk()) return added;
  }
  StatusOr<fleet::Fleet> fleet = reader.assemble();
  if (!fleet.isOk() || !strict || fleet->skipped.empty()) return fleet;
  std::string skipped;
  for (const fleet::SkippedInput& s : fleet->skipped) skipped += (skipped.empty() ? "" : "; ") + s.file + ": " + s.why;
  return Status(StatusCode::kInvalidArgument,
                "--strict: " + std::to_string(fleet->skipped.size()) + " input(s) could not be read whole: " + skipped);
}

void addFleetSourceOptions(CLI::App& command, FleetSource& source, const std::string& statsHelp) {
  command.add_option("STATS", source.inputs, statsHelp);
  command.add_flag("--strict", source.strict,
                   "Exit 2 when an input is skipped (empty, of neither format, or a dump's last record cut short) "
                   "instead of listing it and going on");
  command.add_option("--prometheus", source.prometheus.url,
                     "Read the fleet from this Prometheus (or Thanos, Mimir, VictoriaMetrics) query API instead of "
                     "files: the series NCCL_ROCE_METRICS textfiles carry, e.g. http://prometheus:9090");
  command.add_option("--window", source.selection.window,
                     "With --prometheus: each series' last sample within this long before now counts (a PromQL "
                     "duration: 30m, 6h, 2d)")
      ->capture_default_str();
  command.add_option("--experiment", source.selection.experiment,
                     "With --prometheus: only this experiment's series (needed when the window holds several)");
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
      (source.selection.window != fleet::PrometheusSelection().window || !source.selection.experiment.empty() ||
       !source.prometheus.headers.empty())) {
    throw CLI::ValidationError("--window, --experiment and --prometheus-header", "apply only with --prometheus");
  }
  // Prometheus has no files to skip: its series are the plugin's own, or the query fails.
  if (!source.prometheus.url.empty() && source.strict) {
    throw CLI::ValidationError("--strict", "applies only to STATS files");
  }
}

StatusOr<fleet::Fleet> readFleet(const FleetSource& source) {
  if (source.prometheus.url.empty()) return readFleet(source.inputs, source.strict);
  return fleet::readPrometheusFleet(fleet::prometheusOverHttp(source.prometheus), source.selection);
}

}  // namespace nccl_roce::cli
