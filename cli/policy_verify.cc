// `nccl-roce policy verify --policy P LOG...`: did NCCL run what the policy decides, call by call, from NCCL's
// own TUNING lines (inspect/policy_verify.h; docs/tuner.md, "Verifying a policy against NCCL's log").
#include "inspect/policy_verify.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/sweep_commands.h"
#include "common/directory_walk.h"
#include "common/file.h"
#include "common/strings.h"
#include "inspect/nccl_info_log.h"
#include "nccl-tests-integration/sweep/log_files.h"
#include "policy/policy_loader.h"

namespace nccl_roce::cli {

namespace {

using nlohmann::ordered_json;

constexpr const char* kVerifySchema = "nccl-roce.policy-verify/1";

struct VerifyOptions {
  std::string policy;
  std::vector<std::string> logs;
  std::string format = "text";
  std::string output, jsonPath;
};

ordered_json nameOrNull(int index, const char* (*name)(int)) {
  return index >= 0 ? ordered_json(name(index)) : ordered_json(nullptr);
}

ordered_json cellJson(const inspect::VerifiedCell& c) {
  ordered_json ran = ordered_json::array();
  for (const inspect::RanConfig& r : c.ran) {
    ran.push_back({{"algorithm", telemetry::algorithmName(r.algorithm)},
                   {"protocol", telemetry::protocolName(r.protocol)},
                   {"channels", r.channels},
                   {"calls", r.calls},
                   {"first", r.example}});
  }
  ordered_json rule = nullptr;
  if (c.rule >= 0) {
    rule = {{"index", c.rule},
            {"name", c.ruleName},
            {"line", c.ruleLine},
            {"forces", c.forced},
            {"algorithm", nameOrNull(c.algorithm, telemetry::algorithmName)},
            {"protocol", nameOrNull(c.protocol, telemetry::protocolName)},
            {"channels", c.channels},
            {"chunk_size", telemetry::formatChunkSize(c.chunk)}};
  }
  ordered_json out = {{"policy", c.policy},  {"n_ranks", c.nRanks},
                      {"n_nodes", c.nNodes}, {"collective", telemetry::collectiveName(c.collective)},
                      {"bytes", c.bytes},    {"rule", rule},
                      {"ran", ran},          {"status", inspect::verifyStatusName(c.status)}};
  if (!c.why.empty()) out["why"] = c.why;
  return out;
}

ordered_json reportJson(const inspect::VerifyReport& r) {
  ordered_json processes = ordered_json::array();
  for (const inspect::VerifiedProcess& p : r.processes) {
    processes.push_back({{"file", p.file},
                         {"host", p.host},
                         {"pid", p.pid},
                         {"nccl_version", p.ncclVersion},
                         {"tuner", p.tunerPlugin},
                         {"policies", p.policies},
                         {"tuning_lines", p.tuningLines},
                         {"tuner_calls", p.tunerCalls}});
  }
  ordered_json cells = ordered_json::array();
  for (const inspect::VerifiedCell& c : r.cells) cells.push_back(cellJson(c));
  ordered_json summary = {{"tuning_lines", r.calls}, {"tuner_calls", r.tunerCalls}};
  for (auto status : {inspect::VerifyStatus::kMatch, inspect::VerifyStatus::kMismatch, inspect::VerifyStatus::kNccl,
                      inspect::VerifyStatus::kUnavailable, inspect::VerifyStatus::kUnchecked}) {
    summary[inspect::verifyStatusName(status)] = r.count(status);
  }
  return {{"schema", kVerifySchema},
          {"policy", {{"name", r.policyName}, {"source", r.policySource}, {"digest", r.policyDigest}}},
          {"processes", processes},
          {"cells", cells},
          {"summary", summary},
          {"problems", r.problems},
          {"ok", r.ok()}};
}

int runVerify(const VerifyOptions& o) {
  const char* command = "policy verify";
  std::vector<policy::PolicyError> errors;
  auto active = policy::loadPolicySpec(o.policy, &errors);
  if (!active->error().empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.toString().c_str());
    std::fprintf(stderr, "nccl-roce %s: --policy %s is unusable: %s\n", command, o.policy.c_str(),
                 active->error().c_str());
    return kExitInputError;
  }
  StatusOr<sweep::LogFiles> paths = sweep::expandLogPaths(o.logs);
  if (!paths.isOk()) {
    std::fprintf(stderr, "nccl-roce %s: %s\n", command, paths.status().toString().c_str());
    return kExitInputError;
  }
  reportSkipped(paths->skipped, command);
  std::vector<inspect::NcclInfoLog> logs;
  for (const FoundFile& path : paths->files) {
    StatusOr<std::string> text = readFoundFile(path, sweep::kMaxLogBytes);
    if (!text.isOk()) {
      std::fprintf(stderr, "nccl-roce %s: %s\n", command, text.status().toString().c_str());
      return kExitInputError;
    }
    logs.push_back(inspect::parseNcclInfoLog(*text, path.path()));
  }
  inspect::VerifyReport report = inspect::verifyPolicy(*active, logs);
  std::string json = reportJson(report).dump(1) + "\n";
  if (!writeOutput(o.output, o.format == "json" ? json : inspect::verifyReportText(report), command)) return kExitUsage;
  if (!o.jsonPath.empty() && !writeOutput(o.jsonPath, json, command)) return kExitUsage;
  if (!report.problems.empty()) return kExitInputError;  // logs that prove nothing: nothing to compare
  return report.ok() ? kExitOk : kExitSlower;
}

}  // namespace

void addPolicyVerifyCommand(CLI::App& policy, CommandContext& context) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* verify = policy.add_subcommand(
      "verify",
      "Check NCCL's TUNING lines against a policy: per collective and size, the rule, what it forces, what "
      "NCCL ran, and every mismatch");
  verify->add_option("--policy", o->policy, "The policy the logs ran: built-in name, policy or experiment file")
      ->required();
  verify
      ->add_option("LOG", o->logs,
                   "NCCL logs with NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=INIT,TUNING (rank 0 prints the TUNING "
                   "lines), or directories of *.log and *.txt files")
      ->required();
  verify->add_option("--format", o->format, "Report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  verify->add_option("-o,--output", o->output, "Write the report here instead of stdout");
  verify->add_option("--json", o->jsonPath, "Also write the JSON document here");
  verify->footer(
      "Exit status 0 when NCCL ran what the policy decides wherever a rule fired; 1 on a mismatch; 2 on a usage "
      "error or an output that cannot be written; 3 on an unusable policy, an unreadable log, or logs that prove "
      "nothing (no TUNING line, no tuner loaded, a process that ran another policy).");
  verify->callback([o, &context] { context.exitCode = runVerify(*o); });
}

}  // namespace nccl_roce::cli
