#include "common/env.h"

#include <sys/auxv.h>

#include <cstdlib>

namespace nccl_roce {

std::optional<std::string> ProcessEnvironment::get(const std::string& name) const {
  // The process environment's one reader: nothing of ours writes it while NCCL's threads run (the net plugin's
  // setenv runs once, in NCCL's net init, before NCCL reads what it sets).
  // NOLINTNEXTLINE(concurrency-mt-unsafe)
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

bool ProcessEnvironment::isPrivileged() const {
  // AT_SECURE is what glibc's secure_getenv uses: set for setuid/setgid and capability-raising execs.
  return getauxval(AT_SECURE) != 0;
}

std::optional<std::string> MapEnvironment::get(const std::string& name) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

ProcessEnvironment& processEnvironment() {
  static ProcessEnvironment instance;
  return instance;
}

}  // namespace nccl_roce
