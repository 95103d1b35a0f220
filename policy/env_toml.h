// Reading a policy's [env] (docs/policy-format.md, "Evaluation: first match"): NCCL variables only, each one a name
// some NCCL release reads (a misspelling names the closest) with a value NCCL reads as written
// (policy/nccl_variables.h).
#pragma once

#include "policy/policy.h"
#include "policy/toml_reader.h"

namespace nccl_roce::policy {

// Appends each usable NAME = "value" to policy.env; an error at every other.
void readEnvTable(TomlReader& r, const toml::node& env, Policy& policy);

}  // namespace nccl_roce::policy
