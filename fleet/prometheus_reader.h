// Reads a fleet from Prometheus (or Thanos, Mimir, VictoriaMetrics: the same HTTP query API) instead of
// statistics files: the series the plugin's textfile carries for `ab` (telemetry/open_metrics.h), per communicator
// and rank, become the same records the statistics reader makes, so `ab --prometheus` and `ab FILES` share every
// step after reading and agree to the digit on the same fleet.
//
// Each series is read at its last sample within the window (`last_over_time`): a communicator still running
// gives its figures as of the last scrape, one whose pod has gone its last ones, as long as that scrape is within
// the window. Duplicates of a series (two scrape jobs, HA pairs behind one query endpoint) differ only by
// labels the plugin does not write and collapse into one (`max by`: both counters only grow, so the maximum is
// the latest state for both).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet.h"

namespace nccl_roce::fleet {

struct PrometheusSelection {
  std::string window = "1h";  // a PromQL duration: how far back a communicator's last sample may lie
  std::string experiment;     // only this experiment's series, by name or experiment_hash; "" for every series
};

// Sends one instant query (PromQL) and answers the API's JSON body; an error for a transport failure or an
// HTTP error (prometheus_http.h is the real one; tests give their own).
using PrometheusQuery = std::function<StatusOr<std::string>(const std::string& promql)>;

// Whether `text` is a PromQL duration such as 30m, 1h, 2d or 1h30m.
bool isPromDuration(const std::string& text);

// The queries the reader sends, in order: counts, bin sums, decisions, omitted cells, zero durations, then a
// switchback's arms, unattributed and captured collectives, washouts and paired windows (three).
std::vector<std::string> fleetQueries(const PrometheusSelection& selection);

// The records of one answer of each query (in fleetQueries' order), and notes on what the series could not
// give. kParseError naming the series for anything the plugin would not have written.
struct PrometheusRecords {
  std::vector<CommunicatorRecord> records;
  std::vector<std::string> notes;
};
StatusOr<PrometheusRecords> parseFleetAnswers(const std::vector<std::string>& answers);

// Queries and assembles the fleet. kNotFound when the window holds no series of ours; kInvalidArgument for a
// bad window or several experiments with none selected.
StatusOr<Fleet> readPrometheusFleet(const PrometheusQuery& query, const PrometheusSelection& selection);

}  // namespace nccl_roce::fleet
