// What `detect` and `env` share: resolve the machine named by the options and print it in one format.
#pragma once

#include <string>

#include "cli/machine_options.h"

namespace nccl_roce::cli {

// Prints the resolution as text, json or env (export lines). Returns the exit status: 0 when a port is selected,
// 1 when none is (the reason on stderr, the output still printed; on a machine without RDMA devices, how to replay the
// bundled example machine with `command`), 2 on unusable options.
int runResolution(const MachineOptions& machine, const std::string& format, const std::string& command);

}  // namespace nccl_roce::cli
