// `sweep compare` output: a markdown report for people and a JSON document for programs (schema in
// docs/sweep.md, "compare output").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "nccl-tests-integration/sweep/compare.h"

namespace nccl_roce::sweep {

inline constexpr const char* kCompareSchema = "nccl-roce.sweep.compare/2";

std::string comparisonToMarkdown(const Comparison& comparison);
nlohmann::json comparisonToJson(const Comparison& comparison);

// "B is 7.3% faster" / "B is 4.1% slower" / "no difference": the summary sentence's verdict part.
std::string describeRatio(double ratio, Verdict verdict);

}  // namespace nccl_roce::sweep
