// `nccl-roce snapshot`: capture what the resolver reads on this machine into one file for a bug report;
// `nccl-roce detect --snapshot FILE` and `nccl-roce doctor --snapshot FILE` replay it anywhere.
#include "gid/snapshot.h"

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/doctor/checks.h"
#include "common/file.h"
#include "gid/resolve.h"

namespace nccl_roce::cli {

namespace {

struct SnapshotOptions {
  std::string sysfsRoot;
  std::string ifaddrs;
  std::string output = "-";
};

// The doctor's checks that read sysfs beyond the resolver (netdev MTUs, uverbs nodes, the GID at a forced
// index), run over the recording reader as `doctor --snapshot` (with --dev-root) runs them on the replay.
void recordDoctorReads(const gid::Resolution& resolution, const gid::SnapshotRecorder& recorder) {
  doctor::DoctorInputs in;
  in.resolution = &resolution;
  in.sysfs = &recorder.reader();
  in.env = &recorder.environment();
  in.liveMachine = false;
  in.devRootGiven = true;
  for (auto check : {doctor::checkMtu, doctor::checkDeviceAccess, doctor::checkUserSettings}) (void)check(in);
}

int runSnapshot(const SnapshotOptions& options) {
  std::string root = options.sysfsRoot.empty() ? gid::sysfsRootFor(processEnvironment(), nullptr) : options.sysfsRoot;
  std::unique_ptr<gid::AddressSource> addresses;
  if (!options.ifaddrs.empty()) {
    auto list = gid::readAddressFile(options.ifaddrs);
    if (!list.isOk()) {
      std::fprintf(stderr, "nccl-roce snapshot: %s\n", list.status().toString().c_str());
      return 2;
    }
    addresses = std::make_unique<gid::FixedAddressSource>(std::move(*list));
  } else if (root == "/sys") {
    addresses = std::make_unique<gid::KernelAddressSource>();
  }
  gid::SnapshotRecorder recorder(root, addresses.get(), processEnvironment());
  gid::Resolution resolution = gid::resolve(recorder.sources(), recorder.environment());
  recordDoctorReads(resolution, recorder);
  gid::Snapshot snapshot = recorder.snapshot();
  std::string text = gid::snapshotToJsonText(snapshot);
  if (options.output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  Status written = writeFileAtomically(options.output, text);
  if (!written.isOk()) {
    std::fprintf(stderr, "nccl-roce snapshot: %s\n", written.toString().c_str());
    return 2;
  }
  std::fprintf(stderr, "nccl-roce snapshot: %zu files, %zu directories, %zu errors recorded in %s\n",
               snapshot.sysfs.files.size(), snapshot.sysfs.directories.size(), snapshot.sysfs.errors.size(),
               options.output.c_str());
  return 0;
}

}  // namespace

void addSnapshotCommand(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<SnapshotOptions>();
  CLI::App* command = app.add_subcommand(
      "snapshot", "Capture the sysfs entries, addresses and RDMA variables the resolver reads, for a bug report");
  command->add_option("--sysfs-root", options->sysfsRoot, "Directory that mirrors /sys (default: /sys)")
      ->check(CLI::ExistingDirectory);
  command->add_option("--ifaddrs", options->ifaddrs, "Address file to record instead of the kernel's")
      ->check(CLI::ExistingFile);
  command->add_option("-o,--output", options->output, "Where to write the snapshot ('-' for stdout)")
      ->capture_default_str();
  command->footer("Exit status 0 when the snapshot was written; 2 on a usage error or when it cannot be written.");
  command->callback([options, &context] { context.exitCode = runSnapshot(*options); });
}

}  // namespace nccl_roce::cli
