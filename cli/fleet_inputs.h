// The inputs of `nccl-roce ab` and `ab fit`: statistics files and Inspector dumps named as files, directories
// (searched recursively for *.json, *.jsonl, *.log) or quoted globs, read and assembled into one fleet; or the
// same fleet from Prometheus' query API (--prometheus URL, fleet/prometheus_reader.h).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet.h"
#include "fleet/prometheus_http.h"

namespace nccl_roce::cli {

struct FleetSource {
  std::vector<std::string> inputs;       // STATS...
  bool strict = false;                   // --strict: a skipped input (of STATS) is an error
  fleet::PrometheusEndpoint prometheus;  // url "" unless --prometheus
  fleet::PrometheusSelection selection;
};

// STATS..., --strict and --prometheus, --window, --experiment, --prometheus-header on `command`; `statsHelp`
// describes STATS.
void addFleetSourceOptions(CLI::App& command, FleetSource& source, const std::string& statsHelp);

// Checks, in a callback, that exactly one of STATS and --prometheus was given, each with only its own options (a
// CLI11 usage error otherwise).
void requireOneFleetSource(const FleetSource& source);

// The fleet from the files or from Prometheus, whichever was given.
StatusOr<fleet::Fleet> readFleet(const FleetSource& source);

// An error naming the file for any input that does not read, and for statistics from several experiments;
// kNotFound when the inputs hold no file at all. Empty files, files of neither format and cut-short last records
// are skipped and listed in the fleet (fleet/fleet_files.h); with `strict` any of them is an error instead.
StatusOr<fleet::Fleet> readFleet(const std::vector<std::string>& inputs, bool strict);

}  // namespace nccl_roce::cli
