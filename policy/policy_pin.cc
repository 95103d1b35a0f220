#include "policy/policy_pin.h"

#include <cctype>

namespace nccl_roce::policy {

std::shared_ptr<const ActivePolicy> loadRequestedPolicy(const Environment& env) {
  std::string text = env.get(kInlinePolicyVariable).value_or("");
  if (!text.empty()) return loadPolicyText(text, kInlinePolicyVariable, nullptr);
  return loadPolicySpec(env.get(settings::kPolicy.name).value_or(""), nullptr);
}

std::optional<std::string> parsePolicyDigest(const std::string& text) {
  std::string hex = text.rfind("sha256:", 0) == 0 ? text.substr(7) : text;
  if (hex.size() != 64) return std::nullopt;
  for (char& c : hex) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return "sha256:" + hex;
}

}  // namespace nccl_roce::policy
