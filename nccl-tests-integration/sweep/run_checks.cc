#include "nccl-tests-integration/sweep/run_checks.h"

#include <set>
#include <string>
#include <tuple>

#include "common/strings.h"
#include "nccl-tests-integration/sweep/header_lines.h"

namespace nccl_roce::sweep {

namespace {

constexpr uint64_t kLargeSize = 1 << 20;  // busbw 0.00 above this is no rounding artefact

bool sameSeries(const PerfRow& a, const PerfRow& b) {
  return a.size == b.size && a.type == b.type && a.redop == b.redop && a.root == b.root;
}

bool zeroBusBw(const std::optional<PerfHalf>& half) {
  return half && half->busBwGBs && *half->busBwGBs == 0.0 && half->timeUs && *half->timeUs > 0;
}

void checkDevices(PerfRun& run) {
  std::set<int> seen;
  for (const DeviceLine& d : run.devices) {
    if (!seen.insert(d.rank).second) {
      run.rejections.push_back("rank " + std::to_string(d.rank) +
                               " is listed twice in the device list: several independent processes wrote "
                               "this log (a nccl-tests build without MPI started by mpirun or srun?)");
      return;
    }
  }
}

void checkRows(PerfRun& run) {
  for (size_t i = 1; i < run.rows.size(); ++i) {
    if (sameSeries(run.rows[i - 1], run.rows[i])) {
      run.rejections.push_back("size " + std::to_string(run.rows[i].size) + " appears twice in a row (lines " +
                               std::to_string(run.rows[i - 1].line) + " and " + std::to_string(run.rows[i].line) +
                               "): output of several processes interleaved");
      break;
    }
  }
  for (const PerfRow& row : run.rows) {
    if (row.size >= kLargeSize && zeroBusBw(row.outOfPlace) && zeroBusBw(row.inPlace)) {
      run.rejections.push_back("busbw is 0 at " + std::to_string(row.size) +
                               " bytes: every process ran alone as 1 rank (a nccl-tests build without MPI "
                               "started by mpirun or srun?)");
      break;
    }
  }
  int failed = 0;
  uint64_t firstFailedSize = 0;
  for (const PerfRow& row : run.rows) {
    bool bad = (row.outOfPlace && row.outOfPlace->wrong.value_or(0) > 0) ||
               (row.inPlace && row.inPlace->wrong.value_or(0) > 0);
    if (bad && failed++ == 0) firstFailedSize = row.size;
  }
  if (failed > 0) {
    run.warnings.push_back(std::to_string(failed) + " rows failed validation (#wrong > 0), the first at " +
                           std::to_string(firstFailedSize) + " bytes");
  }
}

}  // namespace

std::string inferCollective(const PerfRun& run) {
  std::optional<int> ranks = run.ranks();
  std::string verdict;
  for (const PerfRow& row : run.rows) {
    int width = typeSize(row.type);
    if (row.count == 0) continue;
    if (width == 0) return "";
    bool reduction = !row.redop.empty() && row.redop != "none";
    bool rootless = !row.root || *row.root == -1;
    std::string guess;
    if (reduction && rootless && row.size == row.count * static_cast<uint64_t>(width)) {
      guess = "all_reduce";
    } else if (reduction && rootless && ranks && *ranks > 1 &&
               row.size == row.count * static_cast<uint64_t>(width) * static_cast<uint64_t>(*ranks)) {
      guess = "reduce_scatter";
    } else {
      return "";
    }
    if (!verdict.empty() && verdict != guess) return "";
    verdict = guess;
  }
  return verdict;
}

void finalizeRun(PerfRun& run) {
  if (run.collective.empty() && !run.command.empty()) {
    run.collective = collectiveFromCommand(run.command);
    if (!run.collective.empty()) run.collectiveSource = CollectiveSource::kCommand;
  }
  if (run.collective.empty()) {
    run.collective = inferCollective(run);
    if (!run.collective.empty()) run.collectiveSource = CollectiveSource::kInferred;
  }
  checkDevices(run);
  checkRows(run);
  if (run.rows.empty()) {
    run.warnings.push_back("no result rows");
  } else if (!run.footer) {
    run.warnings.push_back("the table has no footer: the log ends early (crash, timeout or truncation); " +
                           std::to_string(run.rows.size()) + " rows kept");
  }
  if (run.footer && run.footer->outOfBounds.value_or(0) > 0) {
    run.warnings.push_back("nccl-tests reported " + std::to_string(*run.footer->outOfBounds) + " out-of-bounds values");
  }
}

std::optional<int> PerfRun::ranks() const {
  if (!devices.empty()) return static_cast<int>(devices.size());
  if (parameters.threads && parameters.gpusPerThread) {
    return static_cast<int>(*parameters.threads * *parameters.gpusPerThread);
  }
  return std::nullopt;
}

std::optional<int> PerfRun::nodes() const {
  if (devices.empty()) return std::nullopt;
  std::set<std::string> hosts;
  for (const DeviceLine& d : devices) hosts.insert(d.host);
  return static_cast<int>(hosts.size());
}

const char* collectiveSourceName(CollectiveSource source) {
  switch (source) {
    case CollectiveSource::kPrinted:
      return "printed";
    case CollectiveSource::kCommand:
      return "command";
    case CollectiveSource::kInferred:
      return "inferred";
    case CollectiveSource::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace nccl_roce::sweep
