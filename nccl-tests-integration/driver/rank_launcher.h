// Starting every rank on this host from one command: the driver forks one process per rank before anything
// touches CUDA (a CUDA context does not survive fork), optionally gives each its own NCCL_HOSTID so NCCL
// treats them as separate nodes, and stops the others as soon as one fails (they would otherwise wait in
// NCCL's bootstrap for a peer that is gone).
#pragma once

#include <functional>
#include <string>

namespace nccl_roce::driver {

struct LaunchResult {
  int exitCode = 0;     // the first failing rank's exit status (128 + signal if it was killed), else 0
  int failedRank = -1;  // -1 when every rank succeeded
};

// NCCL_HOSTID value for `rank` with --distinct-hostid: "<host>-rank<R>", as run-sweep.sh writes it.
std::string distinctHostId(const std::string& host, int rank);

// Runs rankMain(r) in a child process for r in 0..nranks-1 and waits for all. With distinctHostIds, each child
// sets NCCL_HOSTID=distinctHostId(host, r) first. rankMain's return value is the child's exit status.
LaunchResult launchRanks(int nranks, bool distinctHostIds, const std::function<int(int rank)>& rankMain);

// The short host name (up to the first dot), or "localhost".
std::string shortHostName();

}  // namespace nccl_roce::driver
