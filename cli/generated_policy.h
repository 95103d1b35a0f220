// Policies the CLI generates (`sweep fit`, `ab fit`) are checked with the tuner's own parser and checks before
// they are written, so what an operator ships always lints clean.
#pragma once

#include <string>

namespace nccl_roce::cli {

// False, with every problem on stderr as a bug to report, when `policy` does not parse or check clean.
bool generatedPolicyLintsClean(const std::string& policy, const char* command);

}  // namespace nccl_roce::cli
