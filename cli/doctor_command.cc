// `nccl-roce doctor`: why RDMA does or does not work in this pod, one line and one remedy per check.
#include <sys/resource.h>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/doctor/checks.h"
#include "cli/doctor/report.h"
#include "cli/machine_options.h"

namespace nccl_roce::cli {

namespace {

struct DoctorOptions {
  MachineOptions machine;
  std::string devRoot = "/dev";
  std::string procRoot = "/proc";
  std::string hwlocXml;
  std::string ncclLibrary;
  std::string format = "text";
};

std::optional<uint64_t> memlockLimit() {
  struct rlimit limit;
  if (::getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<uint64_t>(limit.rlim_cur);
}

int runDoctor(const DoctorOptions& options) {
  std::string error;
  auto sources = MachineSources::open(options.machine, &error);
  if (!sources) {
    std::fprintf(stderr, "nccl-roce doctor: %s\n", error.c_str());
    return 2;
  }
  gid::Resolution resolution = sources->resolve();
  doctor::DoctorInputs in;
  in.resolution = &resolution;
  in.sysfs = sources->sources().sysfs;
  in.env = &sources->userEnvironment();
  in.liveMachine = options.machine.snapshot.empty() && options.machine.sysfsRoot.empty();
  in.devRootGiven = options.devRoot != "/dev";
  in.procRootGiven = options.procRoot != "/proc";
  in.devRoot = options.devRoot;
  in.procRoot = options.procRoot;
  in.memlockLimit = memlockLimit;
  in.hwlocXml = options.hwlocXml;
  in.ncclLibrary = options.ncclLibrary;
  auto results = doctor::runAllChecks(in);
  std::string out = options.format == "json" ? doctor::reportJson(results) : doctor::reportText(results);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return doctor::anyFailed(results) ? 1 : 0;
}

}  // namespace

void addDoctorCommand(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DoctorOptions>();
  CLI::App* doctor =
      app.add_subcommand("doctor", "Check why RDMA does or does not work here: pass/warn/fail with a remedy each");
  options->machine.addTo(*doctor, /*withSnapshot=*/true);
  doctor->add_option("--dev-root", options->devRoot, "Directory that mirrors /dev")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  doctor->add_option("--proc-root", options->procRoot, "Directory that mirrors /proc")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  doctor->add_option("--hwloc-xml", options->hwlocXml, "hwloc topology file to use instead of this machine's")
      ->check(CLI::ExistingFile);
  doctor
      ->add_option("--nccl-lib", options->ncclLibrary,
                   "libnccl.so.2 to inspect (default: the one a vLLM process here loads)")
      ->check(CLI::ExistingFile);
  doctor->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  doctor->footer(
      "Exit status 0 when no check fails (warnings included); 1 when one fails; 2 on a usage error, such as a "
      "path that does not exist or a snapshot that cannot be read.");
  doctor->callback([options, &context] { context.exitCode = runDoctor(*options); });
}

}  // namespace nccl_roce::cli
