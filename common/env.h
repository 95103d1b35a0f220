// Environment seam: every read of a process environment variable by our own code goes through this,
// so tests can give each case its own environment without touching the real one.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace nccl_roce {

class Environment {
 public:
  virtual ~Environment() = default;
  // nullopt when unset; a variable set to "" is set (and "a variable the user set always wins").
  virtual std::optional<std::string> get(const std::string& name) const = 0;
  // True in setuid/setgid processes: paths taken from the environment must then be ignored.
  virtual bool isPrivileged() const = 0;
};

// The real process environment (getenv; AT_SECURE for isPrivileged).
class ProcessEnvironment final : public Environment {
 public:
  std::optional<std::string> get(const std::string& name) const override;
  bool isPrivileged() const override;
};

// A fixed set of variables, for tests and for replaying a snapshot.
class MapEnvironment final : public Environment {
 public:
  MapEnvironment() = default;
  explicit MapEnvironment(std::map<std::string, std::string> vars, bool privileged = false)
      : vars_(std::move(vars)), privileged_(privileged) {}

  std::optional<std::string> get(const std::string& name) const override;
  bool isPrivileged() const override { return privileged_; }

  void set(const std::string& name, const std::string& value) { vars_[name] = value; }
  void unset(const std::string& name) { vars_.erase(name); }
  void setPrivileged(bool privileged) { privileged_ = privileged; }

 private:
  std::map<std::string, std::string> vars_;
  bool privileged_ = false;
};

ProcessEnvironment& processEnvironment();

}  // namespace nccl_roce
