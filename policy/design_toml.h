// Reads how an experiment gives its arms traffic (docs/policy-format.md, "Experiments"): `design` ("per-
// communicator", the default, or "switchback") and, for a switchback, `block` (required) and `washout`. Every
// mistake is an error that says what to write instead.
#pragma once

#include "policy/policy.h"
#include "policy/toml_reader.h"

namespace nccl_roce::policy {

// From [experiment]: sets experiment.design and experiment.switchback.
void readDesign(TomlReader& r, const toml::table& header, Experiment& experiment);

// After the arms are read: a switchback needs two arms to turn between (written or explored).
void checkDesignArms(TomlReader& r, const toml::table& header, const Experiment& experiment);

}  // namespace nccl_roce::policy
