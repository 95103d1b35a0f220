// The options every machine-reading command shares (--sysfs-root, --ifaddrs, --snapshot), and the one
// place that turns them into resolver sources, so detect, env and doctor read the machine the same way.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "common/env.h"
#include "gid/resolve.h"
#include "gid/snapshot.h"

namespace nccl_roce::cli {

struct MachineOptions {
  std::string sysfsRoot;  // empty: NCCL_ROCE_SYSFS_ROOT or /sys
  std::string ifaddrs;
  std::string snapshot;

  void addTo(CLI::App& command, bool withSnapshot);
};

// The user's variables for a replay: the caller's, as on a live machine (a variable the caller set is kept and
// reported, whatever the snapshot recorded), else those recorded with the snapshot, so a replay with nothing set
// reproduces the captured resolution.
class CallerOverSnapshotEnvironment final : public Environment {
 public:
  CallerOverSnapshotEnvironment(const Environment& caller, const Environment& recorded)
      : caller_(caller), recorded_(recorded) {}
  std::optional<std::string> get(const std::string& name) const override {
    std::optional<std::string> value = caller_.get(name);
    return value ? value : recorded_.get(name);
  }
  bool isPrivileged() const override { return false; }

 private:
  const Environment& caller_;
  const Environment& recorded_;
};

// Owns whatever the sources point into (reader, snapshot, address list, user environment).
class MachineSources {
 public:
  // Fails (with a message for stderr) only on unusable options: an unreadable --ifaddrs or --snapshot file.
  static std::unique_ptr<MachineSources> open(const MachineOptions& options, std::string* error);

  gid::Resolution resolve() const;
  const gid::ResolverSources& sources() const { return sources_; }
  // The variables the resolution and the doctor's checks read: the caller's, over a snapshot's recorded ones.
  const Environment& userEnvironment() const { return *user_; }

 private:
  std::optional<gid::Snapshot> snapshot_;
  std::string snapshotPath_;
  std::unique_ptr<gid::SnapshotReplay> replay_;
  std::unique_ptr<gid::SysfsReader> reader_;
  std::unique_ptr<gid::AddressSource> addresses_;
  std::unique_ptr<CallerOverSnapshotEnvironment> replayEnvironment_;
  const Environment* user_ = &processEnvironment();
  gid::ResolverSources sources_;
};

}  // namespace nccl_roce::cli
