#include "cli/machine_options.h"

namespace nccl_roce::cli {

namespace {
// A replay answers under the root the snapshot was captured from, so any path a message names reads as that
// machine's sysfs path, never as an internal one.
constexpr const char* kSnapshotRoot = "/sys";
}  // namespace

void MachineOptions::addTo(CLI::App& command, bool withSnapshot) {
  // A path that does not exist is a usage error (exit 2, CLI11's message), never an empty machine.
  command.add_option("--sysfs-root", sysfsRoot, "Directory that mirrors /sys (default: /sys)")
      ->check(CLI::ExistingDirectory);
  command
      .add_option("--ifaddrs", ifaddrs,
                  "File of this namespace's addresses, one 'IFNAME ADDRESS/PREFIXLEN' per line "
                  "(default: the kernel's when reading /sys; none with --sysfs-root)")
      ->check(CLI::ExistingFile);
  if (withSnapshot) {
    command.add_option("--snapshot", snapshot, "Replay a file written by 'nccl-roce snapshot'")
        ->check(CLI::ExistingFile)
        ->excludes(command.get_option("--sysfs-root"));
  }
}

std::unique_ptr<MachineSources> MachineSources::open(const MachineOptions& options, std::string* error) {
  auto m = std::unique_ptr<MachineSources>(new MachineSources());
  std::string root;
  bool realMachine = false;
  if (!options.snapshot.empty()) {
    auto snapshot = gid::readSnapshotFile(options.snapshot);
    if (!snapshot.isOk()) {
      *error = snapshot.status().toString();
      return nullptr;
    }
    m->snapshot_ = std::move(*snapshot);
    m->snapshotPath_ = options.snapshot;
    m->replay_ = std::make_unique<gid::SnapshotReplay>(*m->snapshot_, kSnapshotRoot);
    m->replayEnvironment_ =
        std::make_unique<CallerOverSnapshotEnvironment>(processEnvironment(), m->replay_->environment());
    m->user_ = m->replayEnvironment_.get();
    m->sources_ = m->replay_->sources();
    if (m->sources_.addresses != nullptr) m->sources_.addressSourceName = "snapshot " + options.snapshot;
  } else {
    root = options.sysfsRoot.empty() ? gid::sysfsRootFor(processEnvironment(), nullptr) : options.sysfsRoot;
    realMachine = root == "/sys";
    m->reader_ = std::make_unique<gid::SysfsReader>(root);
    if (realMachine) {
      m->addresses_ = std::make_unique<gid::KernelAddressSource>();
      m->sources_.addressSourceName = "getifaddrs";
    }
  }
  if (!options.ifaddrs.empty()) {
    auto list = gid::readAddressFile(options.ifaddrs);
    if (!list.isOk()) {
      *error = list.status().toString();
      return nullptr;
    }
    m->addresses_ = std::make_unique<gid::FixedAddressSource>(std::move(*list));
    m->sources_.addressSourceName = options.ifaddrs;
  }
  if (m->reader_) m->sources_.sysfs = m->reader_.get();
  if (m->addresses_) m->sources_.addresses = m->addresses_.get();
  if (realMachine) {
    std::string whyNot;
    m->sources_.verbs = gid::loadSystemVerbs(&whyNot);
    m->sources_.verbsSourceName = "libibverbs.so.1";
  }
  return m;
}

gid::Resolution MachineSources::resolve() const {
  gid::Resolution r = gid::resolve(sources_, *user_);
  if (sources_.verbs == nullptr && r.verbsSource == "not used") {
    r.verbsSource = snapshot_ ? "not used (replaying a snapshot)" : "not used (not reading this machine's /sys)";
  }
  if (snapshot_) r.sysfsRoot = "snapshot " + snapshotPath_;
  return r;
}

}  // namespace nccl_roce::cli
