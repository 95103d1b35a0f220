// `nccl-roce proof OUT`: the verdicts of a GPU proof run (cli/proof.h), as markdown for people and JSON (schema
// nccl-roce.gpu-proof/1) for programs.
#include "cli/proof.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/exit_status.h"
#include "cli/sweep_commands.h"

namespace nccl_roce::cli::proof {

namespace {

constexpr const char* kProofSchema = "nccl-roce.gpu-proof/1";

struct ProofOptions {
  std::string dir;
  std::string format = "markdown";
  std::string output, jsonPath;
};

bool anyFailed(const std::vector<Check>& checks) {
  for (const Check& c : checks) {
    if (c.status == CheckStatus::kFail) return true;
  }
  return false;
}

bool anyRefused(const std::vector<Check>& checks) {
  for (const Check& c : checks) {
    if (c.status == CheckStatus::kRefused) return true;
  }
  return false;
}

// A table cell: no '|' or line break of the text may end it early.
std::string cell(std::string text) {
  for (char& c : text) {
    if (c == '|' || c == '\n') c = c == '|' ? '/' : ' ';
  }
  return text;
}

std::string verdictLine(const std::vector<Check>& checks) {
  if (anyFailed(checks)) return "**Verdict: the proof failed** (see the checks that fail).";
  if (anyRefused(checks)) {
    return "**Verdict: the plugin works inside NCCL; performance verdicts were refused** (the device's times are "
           "flat: run with MPS or one GPU per rank).";
  }
  return "**Verdict: proven**: NCCL obeyed the policy, every collective was counted, and the timings mean something.";
}

std::string toMarkdown(const Inputs& in, const std::vector<Check>& checks) {
  std::string out = "# GPU proof: " + in.dir + "\n\n";
  for (const auto& [key, value] : in.setup) out += "- " + key + ": " + value + "\n";
  if (!in.setup.empty()) out += "\n";
  out += verdictLine(checks) + "\n\n| check | status | summary |\n|---|---|---|\n";
  for (const Check& c : checks) out += "| " + c.name + " | " + statusName(c.status) + " | " + cell(c.summary) + " |\n";
  for (const Check& c : checks) {
    if (c.details.empty()) continue;
    out += "\n## " + c.name + "\n\n";
    for (const std::string& d : c.details) out += "- " + d + "\n";
  }
  return out;
}

nlohmann::ordered_json toJson(const Inputs& in, const std::vector<Check>& checks) {
  nlohmann::ordered_json setup = nlohmann::ordered_json::object();
  for (const auto& [key, value] : in.setup) setup[key] = value;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Check& c : checks) {
    list.push_back(
        {{"name", c.name}, {"status", statusName(c.status)}, {"summary", c.summary}, {"details", c.details}});
  }
  return {{"schema", kProofSchema},
          {"directory", in.dir},
          {"setup", setup},
          {"checks", list},
          {"performance", anyRefused(checks) ? "refused" : "measured"},
          {"ok", !anyFailed(checks)}};
}

int runProof(const ProofOptions& o) {
  const char* command = "proof";
  StatusOr<Inputs> in = readInputs(o.dir);
  if (!in.isOk()) {
    std::fprintf(stderr, "nccl-roce %s: %s\n", command, in.status().toString().c_str());
    return kExitInputError;
  }
  if (in->setup.empty() && in->sweep.configurations.empty() && in->graph.configurations.empty() &&
      in->switchback.configurations.empty()) {
    std::fprintf(stderr,
                 "nccl-roce %s: %s: nothing gpu-proof.sh writes (no setup.txt, no sweep, graph or "
                 "switchback runs): nothing to decide\n",
                 command, o.dir.c_str());
    return kExitInputError;
  }
  for (const SkippedEntry& s : in->skipped) {
    std::fprintf(stderr, "nccl-roce %s: skipped %s: %s\n", command, s.path.c_str(), s.why.c_str());
  }
  std::vector<Check> checks = runChecks(*in);
  std::string json = toJson(*in, checks).dump(1) + "\n";
  if (!writeOutput(o.output, o.format == "json" ? json : toMarkdown(*in, checks), command)) return kExitUsage;
  if (!o.jsonPath.empty() && !writeOutput(o.jsonPath, json, command)) return kExitUsage;
  return anyFailed(checks) ? kExitSlower : kExitOk;
}

}  // namespace

}  // namespace nccl_roce::cli::proof

namespace nccl_roce::cli {

void addProofCommand(CLI::App& app, CommandContext& context) {
  auto o = std::make_shared<proof::ProofOptions>();
  CLI::App* command = app.add_subcommand(
      "proof",
      "Decide a GPU proof run (nccl-tests-integration/scripts/gpu-proof.sh): plugins loaded, NCCL obeying "
      "the policy, every collective counted, CUDA-graph replays, time slicing, the A/B and the switchback");
  command->add_option("OUT", o->dir, "The directory gpu-proof.sh wrote")->required();
  command->add_option("--format", o->format, "Report format")
      ->check(CLI::IsMember({"markdown", "json"}))
      ->capture_default_str();
  command->add_option("-o,--output", o->output, "Write the report here instead of stdout");
  command->add_option("--json", o->jsonPath, "Also write the JSON document here");
  command->footer(
      "Each check passes, fails, or refuses a performance verdict on a time-sliced device (docs/gpu-proof.md). Exit "
      "status 0 when no check fails (refusals included); 1 when one fails; 2 on a usage error or an output that cannot "
      "be written; 3 on an unreadable directory or file, or a directory gpu-proof.sh did not write.");
  command->callback([o, &context] { context.exitCode = proof::runProof(*o); });
}

}  // namespace nccl_roce::cli
