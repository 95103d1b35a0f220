// A problem in a policy file, located precisely: "policies/inference.toml:12:9: unknown protocol 'll65'".
#pragma once

#include <string>
#include <vector>

namespace nccl_roce::policy {

struct PolicyError {
  std::string file;
  int line = 0;    // 1-based; 0 when the problem is the file as a whole
  int column = 0;  // 1-based; 0 when unknown
  std::string message;

  std::string toString() const;
};

std::string joinErrors(const std::vector<PolicyError>& errors);  // one per line

}  // namespace nccl_roce::policy
