// The options every machine-reading command shares (--sysfs-root, --ifaddrs, --snapshot), and the one
// place that turns them into resolver sources, so detect, env and doctor read the machine the same way.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

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

// Owns whatever the sources point into (reader, snapshot, address list, user environment).
class MachineSources {
 public:
  // Fails (with a message for stderr) only on unusable options: an unreadable --ifaddrs or --snapshot file.
  static std::unique_ptr<MachineSources> open(const MachineOptions& options, std::string* error);

  gid::Resolution resolve() const;
  const gid::ResolverSources& sources() const { return sources_; }
  const Environment& userEnvironment() const { return *user_; }

 private:
  std::optional<gid::Snapshot> snapshot_;
  std::unique_ptr<gid::SnapshotReplay> replay_;
  std::unique_ptr<gid::SysfsReader> reader_;
  std::unique_ptr<gid::AddressSource> addresses_;
  const Environment* user_ = &processEnvironment();
  gid::ResolverSources sources_;
};

}  // namespace nccl_roce::cli
