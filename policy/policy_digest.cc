#include "policy/policy_digest.h"

#include "common/sha256.h"

namespace nccl_roce::policy {

std::string canonicalPolicyText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out += text[i];
  }
  size_t end = out.find_last_not_of(" \t\r\n");
  out.resize(end == std::string::npos ? 0 : end + 1);
  return out;
}

std::string policyDigest(std::string_view text) {
  return "sha256:" + sha256Hex(canonicalPolicyText(text));
}

std::string compositeDigest(std::string_view text, const std::vector<std::pair<std::string, std::string>>& parts) {
  std::string bundle = canonicalPolicyText(text);
  for (const auto& [name, digest] : parts) bundle += "\n" + name + "\n" + digest;
  return "sha256:" + sha256Hex(bundle);
}

}  // namespace nccl_roce::policy
