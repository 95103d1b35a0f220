// The inputs of `nccl-roce ab` and `ab fit`: statistics files and Inspector dumps named as files, directories
// (searched recursively for *.json, *.jsonl, *.log) or quoted globs, read and assembled into one fleet (no link
// followed nor anything but a regular file read below a directory or glob named: common/directory_walk.h); or the
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
  bool strict = false;                   // --strict: every input error, and every input not read whole, exits 3
  bool skipUnreadable = false;           // --skip-unreadable: a file that fails to read is listed, not fatal
  fleet::PrometheusEndpoint prometheus;  // url "" unless --prometheus
  fleet::PrometheusSelection selection;  // its experiment (--experiment) applies to STATS too
};

// STATS..., --strict, --skip-unreadable, --experiment and --prometheus, --window, --prometheus-header on `command`;
// `statsHelp` describes STATS.
void addFleetSourceOptions(CLI::App& command, FleetSource& source, const std::string& statsHelp);

// Checks, in a callback, that exactly one of STATS and --prometheus was given, each with only its own options (a
// CLI11 usage error otherwise).
void requireOneFleetSource(const FleetSource& source);

// The fleet from the files or from Prometheus, whichever was given.
StatusOr<fleet::Fleet> readFleet(const FleetSource& source);

// An error naming the file and the remedy for any input that does not read or fails its checks (with
// `skipUnreadable`, such a file is listed as skipped instead), and for statistics from several experiments without
// `experiment` (a name or an experiment_hash that selects one); kNotFound when the inputs hold no file at all.
// Empty files, files of neither format and a dump's cut-short last record are skipped and listed in the fleet
// (fleet/fleet_files.h).
StatusOr<fleet::Fleet> readFleet(const std::vector<std::string>& inputs, const std::string& experiment,
                                 bool skipUnreadable);

// What the fleet left out, on stderr, one line each: "error: " and each communicator left out because its ranks
// disagree; "skipped FILE: why" for each input not read.
void printLeftOut(const fleet::Fleet& fleet, const char* command);

// The gate on input errors (cli/exit_status.h): a communicator whose ranks disagree always (a verdict or a fit
// that leaves out a job that would hang means nothing); under --fail-on-slower (`failOnSlower`) or --strict, also
// the inputs printLeftOut listed that the gate does not pass (--strict: every one; --fail-on-slower: the errors,
// not an empty file or a killed process's last record). Counted in one closing line on stderr that names why and
// what to do. False, and nothing printed, when the gate passes.
bool gateRefusesInputs(const fleet::Fleet& fleet, bool strict, bool failOnSlower, const char* command);

}  // namespace nccl_roce::cli
