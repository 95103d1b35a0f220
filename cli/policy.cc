// `nccl-roce policy lint FILE...` and `nccl-roce policy explain`.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "common/env.h"
#include "common/strings.h"
#include "inspect/explain.h"
#include "policy/builtin_policies.h"
#include "policy/policy_loader.h"
#include "policy/policy_pin.h"
#include "telemetry/nccl_names.h"
#include "tuner/experiment.h"

namespace nccl_roce::cli {

namespace {

// A FILE argument of lint and digest: a file, a built-in name, or "-" for stdin read as NCCL_ROCE_POLICY_INLINE
// is (so an inline policy is checked exactly as the tuner will load it).
std::shared_ptr<const policy::ActivePolicy> loadPolicyArgument(const std::string& file,
                                                               std::vector<policy::PolicyError>* errors) {
  if (file != "-") return policy::loadPolicySpec(file, errors);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0;) text.append(buffer, n);
  return policy::loadPolicyText(text, "NCCL_ROCE_POLICY_INLINE", errors);
}

int runLint(const std::vector<std::string>& files) {
  int status = 0;
  for (const auto& file : files) {
    std::vector<policy::PolicyError> errors;
    auto active = loadPolicyArgument(file, &errors);
    if (!errors.empty() || !active->error().empty()) {
      for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.toString().c_str());
      status = 1;
      continue;
    }
    if (const auto& experiment = active->experiment()) {
      size_t written = experiment->arms.size();
      std::string arms = std::to_string(written) + (written == 1 ? " arm" : " arms");
      if (experiment->explore) {
        arms += " and " + std::to_string(experiment->explore->arms.size()) + " generated arms sharing " +
                std::to_string(experiment->explore->weight) + "%";
      }
      std::printf("%s: ok (experiment '%s', %s, %s)\n", file.c_str(), experiment->name.c_str(), arms.c_str(),
                  active->digest().c_str());
    } else {
      auto policy = tuner::assignPolicy(*active, 0).policy;
      std::printf("%s: ok (policy '%s', %zu rules, %s)\n", file.c_str(), policy->name.c_str(), policy->rules.size(),
                  active->digest().c_str());
    }
  }
  return status;
}

// The digest a pin names (NCCL_ROCE_POLICY_DIGEST), for files, built-in names, or "-" for stdin (the text of
// NCCL_ROCE_POLICY_INLINE). Refuses unusable policies: a pin on a policy the tuner cannot load protects nothing.
int runDigest(const std::vector<std::string>& files) {
  int status = 0;
  for (const auto& file : files) {
    std::vector<policy::PolicyError> errors;
    std::shared_ptr<const policy::ActivePolicy> active = loadPolicyArgument(file, &errors);
    if (!errors.empty() || !active->error().empty() || active->digest().empty()) {
      for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.toString().c_str());
      std::fprintf(stderr, "nccl-roce policy digest: %s: unusable, no digest\n", file.c_str());
      status = 1;
      continue;
    }
    std::printf(files.size() == 1 ? "%s\n" : "%s  %s\n", active->digest().c_str(), file.c_str());
  }
  return status;
}

// Bounds for --nodes/--ranks: a range a person can read in CLI11's message (NCCL's nRanks is an int).
constexpr uint64_t kMaxRanks = uint64_t{1} << 24;

struct ExplainOptions {
  std::string policy;
  std::string collective = "allreduce";
  uint64_t nodes = 0;
  uint64_t ranks = 0;
  std::string size;
  int pipeOps = 1;
  bool regBuff = false;
  uint64_t commId = 0;
};

// Operations NCCL runs on its point-to-point path, for which it never asks a tuner (nor does our profiler time them):
// pipeline parallelism's sends between stages, expert parallelism's all-to-all.
bool isPointToPoint(const std::string& name) {
  const std::string n = toLower(name);
  return n == "send" || n == "recv" || n == "sendrecv" || n == "alltoall" || n == "gather" || n == "scatter";
}

int runExplain(const ExplainOptions& options) {
  if (isPointToPoint(options.collective)) {
    std::printf(
        "call: %s on %llu ranks / %llu nodes\n"
        "rule: none can apply: NCCL does not ask a tuner for point-to-point operations (send and receive, and the "
        "all-to-all, gather and scatter it builds from them), and nccl-roce's profiler does not time them, so no "
        "policy or experiment reaches them. NCCL's point-to-point path decides, over the HCAs and GIDs the resolver "
        "chose. Pipeline parallelism's sends between stages and expert parallelism's all-to-all are such "
        "operations (docs/quickstart.md, \"Which layouts it helps\").\n",
        options.collective.c_str(), static_cast<unsigned long long>(options.ranks),
        static_cast<unsigned long long>(options.nodes));
    return 0;
  }
  auto collective = telemetry::parseCollective(options.collective);
  if (!collective) {
    std::fprintf(stderr, "nccl-roce policy explain: unknown collective '%s' (expected one of: %s)\n",
                 options.collective.c_str(), telemetry::collectiveChoices().c_str());
    return 2;
  }
  auto bytes = parseByteSize(options.size);
  if (!bytes.isOk()) {
    std::fprintf(stderr, "nccl-roce policy explain: --size: %s\n", bytes.status().message().c_str());
    return 2;
  }
  if (options.ranks < options.nodes) {
    std::fprintf(stderr, "nccl-roce policy explain: --ranks must be at least --nodes\n");
    return 2;
  }
  // Without --policy, what the tuner would load from this environment (the inline text wins, as there).
  auto active = options.policy.empty() ? policy::loadRequestedPolicy(processEnvironment())
                                       : policy::loadPolicySpec(options.policy, nullptr);
  inspect::ExplainRequest request;
  request.nRanks = options.ranks;
  request.nNodes = options.nodes;
  request.commId = options.commId;
  request.call = {*collective, *bytes, options.pipeOps, options.regBuff ? 1 : 0};
  std::string text = inspect::explainCall(*active, request);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return active->error().empty() ? 0 : 1;
}

}  // namespace

void addPolicyCommands(CLI::App& app, CommandContext& context) {
  CLI::App* policy = app.add_subcommand("policy", "Check and explain tuner policies");
  policy->require_subcommand(1);
  policy->footer("Exit status: the subcommand's (see its --help); 2 on a usage error, such as no subcommand.");

  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* lint = policy->add_subcommand(
      "lint", "Check policy or experiment files (TOML, or NCCL's example CSV); errors as file:line:column");
  lint->add_option("FILE", *files, "Policy files, experiment files, built-in names, or - for an inline policy on stdin")
      ->required();
  lint->footer(
      "Exit status 0 when every file is usable; 1 otherwise (a file that cannot be read is not usable); 2 on "
      "a usage error.");
  lint->callback([files, &context] { context.exitCode = runLint(*files); });

  auto digestFiles = std::make_shared<std::vector<std::string>>();
  CLI::App* digest = policy->add_subcommand(
      "digest",
      "Print the digest a pin names (NCCL_ROCE_POLICY_DIGEST): the sha256 of the policy's text with CRLF line ends "
      "read as LF and the whitespace at its very end dropped (so a file and \"$(cat file)\" agree); for an "
      "experiment, of its text and every arm's name and digest");
  digest
      ->add_option("FILE", *digestFiles,
                   "Policy or experiment files, built-in names, or - for an inline policy on stdin")
      ->required();
  digest->footer(
      "Exit status 0 when every file is usable; 1 otherwise (an unusable policy has no digest to pin); 2 "
      "on a usage error.");
  digest->callback([digestFiles, &context] { context.exitCode = runDigest(*digestFiles); });

  auto options = std::make_shared<ExplainOptions>();
  CLI::App* explain = policy->add_subcommand(
      "explain", "Show which rule fires for one collective call, what NCCL is told, and the fallbacks");
  explain->add_option("--policy", options->policy,
                      "Built-in name (" + std::string(policy::kPassthroughPolicyName) + ", " +
                          policy::kDefaultPolicyName +
                          ") or file (default: what the tuner loads: NCCL_ROCE_POLICY_INLINE, else NCCL_ROCE_POLICY, "
                          "else " +
                          policy::kDefaultPolicyName + ")");
  explain
      ->add_option("--coll", options->collective,
                   "Collective; send, recv, sendrecv, alltoall, gather and scatter are point-to-point operations, "
                   "which NCCL never asks a tuner about")
      ->capture_default_str();
  explain->add_option("--nodes", options->nodes, "Nodes in the communicator")
      ->required()
      ->check(CLI::Range(uint64_t{1}, kMaxRanks));
  explain->add_option("--ranks", options->ranks, "Ranks in the communicator")
      ->required()
      ->check(CLI::Range(uint64_t{1}, kMaxRanks));
  explain->add_option("--size", options->size, "Bytes NCCL reports (all-reduce: the buffer), e.g. 1M")->required();
  explain->add_option("--pipe-ops", options->pipeOps, "numPipeOps")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  explain->add_flag("--reg-buff", options->regBuff, "Buffers registered (or captured in a CUDA graph)");
  explain->add_option("--comm-id", options->commId, "Communicator id, for experiments")->capture_default_str();
  explain->footer(
      "Exit status 0 when the policy is usable; 1 when it is not (the explanation then shows NCCL's own "
      "choice, as the tuner would fall back); 2 on a usage error.");
  explain->callback([options, &context] { context.exitCode = runExplain(*options); });
  addPolicyVerifyCommand(*policy, context);
}

}  // namespace nccl_roce::cli
