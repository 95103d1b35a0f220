// The policies compiled into the library. Their text is share/nccl-roce/policies/<name>.toml, embedded at
// build time, so the files operators read are exactly what runs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nccl_roce::policy {

inline constexpr const char* kDefaultPolicyName = "inference";
inline constexpr const char* kPassthroughPolicyName = "nccl";

std::optional<std::string_view> builtinPolicyText(std::string_view name);
std::vector<std::string> builtinPolicyNames();

}  // namespace nccl_roce::policy
