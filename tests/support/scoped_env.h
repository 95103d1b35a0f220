// Sets a process environment variable for one test's scope: the plugin entry points read the real
// environment, as they do inside NCCL.
#pragma once

#include <cstdlib>
#include <string>

namespace nccl_roce::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

}  // namespace nccl_roce::testing
