#include "policy/policy_error.h"

namespace nccl_roce::policy {

std::string PolicyError::toString() const {
  std::string out = file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out + ": " + message;
}

std::string joinErrors(const std::vector<PolicyError>& errors) {
  std::string out;
  for (const auto& e : errors) out += e.toString() + "\n";
  return out;
}

}  // namespace nccl_roce::policy
