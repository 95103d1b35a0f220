// The inputs of `nccl-roce ab` and `ab fit`: statistics files and Inspector dumps named as files, directories
// (searched recursively for *.json, *.jsonl, *.log) or quoted globs, read and assembled into one fleet.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet.h"

namespace nccl_roce::cli {

// An error naming the file for any input that does not read, and for statistics from several experiments;
// kNotFound when the inputs hold no file at all.
StatusOr<fleet::Fleet> readFleet(const std::vector<std::string>& inputs);

}  // namespace nccl_roce::cli
