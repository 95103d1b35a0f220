// Reads [experiment.explore] (docs/policy-format.md, "Exploration"), after the experiment's written arms: one
// generated arm per algorithm x protocol x channels combination, each checked against what NCCL can ever run
// (policy/nccl_availability.h); a combination NCCL never runs for the listed calls is an error at its name.
#pragma once

#include "policy/policy.h"
#include "policy/toml_reader.h"

namespace nccl_roce::policy {

// Sets experiment.explore. False when the table has no usable weight, so the experiment's weights cannot be
// added up (its error says so already).
bool readExploration(TomlReader& r, const toml::node& node, Experiment& experiment);

}  // namespace nccl_roce::policy
