// The inputs of `nccl-roce ab` and `ab fit`: statistics files and Inspector dumps named as files, directories
// (searched recursively for *.json, *.jsonl, *.log) or quoted globs, read and assembled into one fleet.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet.h"

namespace nccl_roce::cli {

// An error naming the file for any input that does not read, and for statistics from several experiments;
// kNotFound when the inputs hold no file at all. Empty files, files of neither format and cut-short last records
// are skipped and listed in the fleet (fleet/fleet_files.h); with `strict` any of them is an error instead.
StatusOr<fleet::Fleet> readFleet(const std::vector<std::string>& inputs, bool strict);

// --strict of `ab` and `ab fit`: a skipped input is an error (exit 2), for pipelines that must see every file.
void addStrictOption(CLI::App& command, bool& strict);

}  // namespace nccl_roce::cli
