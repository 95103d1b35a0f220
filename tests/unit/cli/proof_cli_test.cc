// `nccl-roce proof OUT` as whoever next has a GPU runs it, on what gpu-proof.sh leaves: the first real run (an H200,
// tests/data/gpu-runs/h200-nccl-2.28.9), which proves the plugins loaded and nothing more, and a complete run assembled
// from that run's own logs as NCCL would have written them under the divergent policy, with the driver's counts, the
// statistics files that agree with them, healthy timings and a switchback fleet: every check passes there, and each
// fails when its evidence is broken.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "common/file.h"
#include "common/strings.h"
#include "nccl-tests-integration/driver/issued_counts.h"
#include "nccl-tests-integration/driver/perf_table.h"
#include "policy/policy_loader.h"
#include "telemetry/stats_file.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

const std::string kFirstRun = "tests/data/gpu-runs/h200-nccl-2.28.9";

std::string read(const std::string& path) {
  StatusOr<std::string> text = readFileBounded(path, size_t{1} << 24);
  EXPECT_TRUE(text.isOk()) << text.status().toString();
  return text.isOk() ? *text : "";
}

nlohmann::json proofOf(const std::string& dir, int expectedExit) {
  CommandResult r = runCommand(cliPath() + " proof " + dir + " --format json");
  EXPECT_EQ(r.exitCode, expectedExit) << r.out << r.err;
  return r.exitCode == 0 || r.exitCode == 1 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

std::map<std::string, std::pair<std::string, std::string>> statusesOf(const nlohmann::json& proof) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  for (const auto& c : proof["checks"]) out[c["name"]] = {c["status"], c["summary"]};
  return out;
}

TEST(ProofCli, TheFirstRealRunProvedThePluginsLoadedAndNothingMore) {
  nlohmann::json proof = proofOf(sourcePath(kFirstRun), 1);
  EXPECT_EQ(proof["schema"], "nccl-roce.gpu-proof/1");
  EXPECT_EQ(proof["ok"], false);
  EXPECT_EQ(proof["performance"], "refused");
  EXPECT_EQ(proof["setup"]["gpu"], "NVIDIA H200 (141 GiB)");
  auto s = statusesOf(proof);
  EXPECT_EQ(s["plugins-loaded"].first, "pass");
  EXPECT_EQ(s["policy-obeyed"].first, "fail");
  EXPECT_THAT(s["policy-obeyed"].second,
              HasSubstr("12 sizes match, 0 mismatch over 1345 TUNING lines, but at every such size NCCL's own "
                        "choice (the default run) is the same"));
  EXPECT_EQ(s["timed-collectives"].first, "fail");
  EXPECT_EQ(s["graph-replays"].first, "fail");
  EXPECT_EQ(s["timing-quantum"].first, "refused");
  EXPECT_THAT(s["timing-quantum"].second, HasSubstr("4 of 4 runs took one time at every size (about 4.52 ms"));
  EXPECT_EQ(s["divergent-vs-default"].first, "refused");
  EXPECT_EQ(s["switchback"].first, "fail");
  bool aa = false;
  for (const auto& c : proof["checks"]) {
    if (c["name"] != "divergent-vs-default") continue;
    for (const auto& d : c["details"]) aa |= d.get<std::string>().rfind("A/A at every size (24)", 0) == 0;
  }
  EXPECT_TRUE(aa) << "the inference run was an A/A against NCCL's own choices";
}

// --- a complete run, assembled ----------------------------------------------------------------------------------

const char* kDivergentFile = "gpu-proof-divergent.toml";
constexpr uint64_t kMiB = 1 << 20;

// Healthy times: a latency and a bandwidth term (no time slice).
double healthyUs(uint64_t bytes) {
  return 28 + static_cast<double>(bytes) / 9000;
}

// Every table row of a real log re-timed with `us(size)`, through the driver's own row format.
std::string retimed(const std::string& log, const std::function<double(uint64_t)>& us) {
  std::string out;
  static const std::regex row(R"(^ +(\d+) +\d+ +float +sum +-1 .*$)");
  for (std::string_view line : split(log, '\n')) {
    std::string text(line);
    std::smatch m;
    if (std::regex_match(text, m, row)) {
      uint64_t bytes = std::stoull(m[1]);
      driver::MeasuredSize size{bytes, {us(bytes), 0}, {us(bytes) * 1.01, 0}};
      text = driver::tableRow(size, driver::DataType::kFloat, 2);
      text.pop_back();
    }
    out += text + "\n";
  }
  return out;
}

// The real default log as NCCL prints it under the divergent policy: what it ran, our tuner's line, the run's
// environment, and another process id.
std::string underDivergentPolicy(std::string log, const policy::ActivePolicy& active, const std::string& path,
                                 int64_t pid, int64_t newPid) {
  log = std::regex_replace(log, std::regex("NCCL_ROCE_POLICY=nccl"), "NCCL_ROCE_POLICY=" + path);
  log = std::regex_replace(log, std::regex("uses policy 'nccl' \\(builtin:nccl, sha256:[0-9a-f]+\\)"),
                           "uses policy '" + active.policy()->name + "' (" + path + ", " + active.digest() + ")");
  for (uint64_t bytes = 8; bytes <= 64 * kMiB; bytes *= 2) {
    std::string ran = bytes < (16u << 10) ? "TREE proto SIMPLE channel{Lo..Hi}={0..0}"
                      : bytes < kMiB      ? "TREE proto LL channel{Lo..Hi}={0..1}"
                                          : "TREE proto SIMPLE channel{Lo..Hi}={0..0}";
    log = std::regex_replace(log,
                             std::regex("AllReduce: " + std::to_string(bytes) +
                                        " Bytes -> Algo \\w+ proto \\w+ channel\\{Lo\\.\\.Hi\\}=\\{\\d+\\.\\.\\d+\\}"),
                             "AllReduce: " + std::to_string(bytes) + " Bytes -> Algo " + ran);
  }
  return std::regex_replace(log, std::regex("vm:" + std::to_string(pid) + ":"), "vm:" + std::to_string(newPid) + ":");
}

// What our plugin writes for a process that issued `issued`: one communicator, every collective timed and decided.
std::string statisticsFor(int64_t pid, const driver::DriverIssued& issued) {
  telemetry::CommunicatorSnapshot s;
  s.commId = 0x1000 + static_cast<uint64_t>(pid);
  s.nRanks = 2;
  s.nNodes = 2;
  s.rank = 0;
  s.identity = telemetry::PolicyIdentity{};
  telemetry::Timings t;
  std::vector<telemetry::DecisionCount> decisions;
  for (const auto& [collective, counts] :
       {std::pair<int, const driver::IssuedCounts&>{4, issued.allReduce}, {2, issued.allGather}}) {
    telemetry::CellKey key = telemetry::cellKey(collective, 4096, 1, 0, 0);
    decisions.push_back({key, telemetry::DecisionSource::kNccl, "", "", counts.tunerCalls()});
    telemetry::KeyTimings k;
    k.key = telemetry::cellKey(collective, 4096, 1, 0, 1);
    k.key.source = telemetry::TimingSource::kKernelGpu;
    for (uint64_t i = 0; i < counts.timed(); ++i) k.histogram.record(30000);
    t.keys.push_back(k);
  }
  s.decisions = decisions;
  s.timings = t;
  telemetry::StatsEntry entry{1, false, 1764265322000, s};
  std::string text = telemetry::renderStatsEntry(entry);
  return telemetry::renderStatsFile({telemetry::kStatsSchema, "vm", pid}, {&text});
}

driver::DriverIssued issuedBy(std::vector<std::string> args) {
  StatusOr<driver::DriverOptions> o = driver::parseDriverOptions(args);
  EXPECT_TRUE(o.isOk());
  return driver::expectedIssued(*o);
}

std::string issuedLines(int64_t pid, const driver::DriverIssued& issued) {
  return driver::formatIssuedLine({0, pid, "vm", "AllReduce", issued.allReduce}) +
         driver::formatIssuedLine({0, pid, "vm", "AllGather", issued.allGather});
}

// OUT as gpu-proof.sh leaves it after a good run with MPS.
class CompleteRun {
 public:
  CompleteRun() {
    out_ = dir_.join("out");
    dir_.writeFile("out/setup.txt", "date: 2026-12-01T10:00:00Z\ngpu: NVIDIA H200 (141 GiB)\nmps: private daemon\n");
    std::string divergent = dir_.writeFile(std::string("out/") + kDivergentFile,
                                           read(sourcePath("share/nccl-roce/examples/gpu-proof-divergent.toml")));
    auto active = policy::loadPolicySpec(divergent, nullptr);
    driver::DriverIssued sweep = issuedBy({"-b", "8", "-e", "64M", "-f", "2", "-n", "20", "-w", "5", "-c", "1"});
    for (auto [rep, pid, noise] : {std::tuple<int, int64_t, double>{1, 589, 1.0}, {2, 651, 1.01}}) {
      std::string log = retimed(read(sourcePath(kFirstRun + "/sweep/default/rep-" + std::to_string(rep) + ".log")),
                                [noise = noise](uint64_t b) { return healthyUs(b) * noise; });
      std::string name = "rep-" + std::to_string(rep) + ".log";
      dir_.writeFile("out/sweep/default/" + name, log + issuedLines(pid, sweep));
      dir_.writeFile("out/sweep/stats." + std::to_string(pid) + ".json", statisticsFor(pid, sweep));
      int64_t other = pid + 1000;
      std::string under =
          underDivergentPolicy(retimed(log, [noise = noise](uint64_t b) { return 0.9 * healthyUs(b) * noise; }),
                               *active, divergent, pid, other);
      dir_.writeFile("out/sweep/policy-gpu-proof-divergent/" + name, under + issuedLines(other, sweep));
      dir_.writeFile("out/sweep/stats." + std::to_string(other) + ".json", statisticsFor(other, sweep));
    }
    driver::DriverIssued graph = issuedBy({"-b", "4K", "-e", "16M", "-f", "16", "-n", "5", "-w", "1", "-G", "10"});
    dir_.writeFile("out/graph/policy-gpu-proof-divergent/rep-1.log",
                   "# nccl-roce-env: NCCL_ROCE_POLICY=" + divergent + "\n" + issuedLines(7001, graph));
    graphStats_ = dir_.writeFile("out/graph/stats.7001.json", statisticsFor(7001, graph));
    CommandResult fleet =
        runCommand(binaryPath("tests/calibration/synthetic_fleet") + " --switchback " + dir_.join("out/switchback"));
    EXPECT_EQ(fleet.exitCode, 0) << fleet.err;
    // synthetic_fleet names its files its own way; gpu-proof.sh's are stats.<pid>.json.
    int n = 0;
    StatusOr<std::vector<std::string>> files = listDirectory(dir_.join("out/switchback"), 1000);
    for (const std::string& f : files.isOk() ? *files : std::vector<std::string>{}) {
      std::string from = dir_.join("out/switchback/" + f);
      EXPECT_EQ(std::rename(from.c_str(), dir_.join("out/switchback/stats." + std::to_string(++n) + ".json").c_str()),
                0);
    }
  }
  const std::string& out() const { return out_; }
  const std::string& graphStats() const { return graphStats_; }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  std::string out_, graphStats_;
};

TEST(ProofCli, ACompleteRunPassesEveryCheck) {
  CompleteRun run;
  nlohmann::json proof = proofOf(run.out(), 0);
  EXPECT_EQ(proof["ok"], true);
  EXPECT_EQ(proof["performance"], "measured");
  auto s = statusesOf(proof);
  for (const auto& [name, status] : s) EXPECT_EQ(status.first, "pass") << name << ": " << status.second;
  EXPECT_THAT(s["policy-obeyed"].second,
              HasSubstr("NCCL ran what 'gpu-proof-divergent' decides (24 sizes match, 0 "
                        "mismatch over 192 TUNING lines), at 24 sizes against its own choice"));
  EXPECT_THAT(s["timed-collectives"].second, HasSubstr("every collective timed once and decided once, none dropped"));
  EXPECT_THAT(s["graph-replays"].second,
              HasSubstr("every graph replay timed: 400 replayed collectives of 40 captured"));
  EXPECT_THAT(s["timing-quantum"].second, HasSubstr("times grow with the size in all 4 runs"));
  EXPECT_THAT(s["divergent-vs-default"].second,
              HasSubstr("policy-gpu-proof-divergent against default over 16K-64M: B is 10.0% faster"));
  EXPECT_THAT(s["switchback"].second, HasSubstr("experiment 'sim', one communicator in turns: arm 'candidate'"));

  CommandResult markdown = runCommand(cliPath() + " proof " + run.out());
  EXPECT_EQ(markdown.exitCode, 0);
  EXPECT_THAT(markdown.out, HasSubstr("**Verdict: proven**"));
  EXPECT_THAT(markdown.out, HasSubstr("| graph-replays | pass | every graph replay timed"));
}

TEST(ProofCli, AReplayTheProfilerMissedFailsTheGraphCheck) {
  CompleteRun run;
  nlohmann::json stats = nlohmann::json::parse(read(run.graphStats()));
  stats["communicators"][0]["timing"]["dropped"]["incomplete"] = 1;
  run.dir().writeFile("out/graph/stats.7001.json", stats.dump());
  auto s = statusesOf(proofOf(run.out(), 1));
  EXPECT_EQ(s["graph-replays"].first, "fail");
  EXPECT_THAT(s["graph-replays"].second, HasSubstr("2 of 2 counts disagree with the statistics files"));
  EXPECT_EQ(s["timed-collectives"].first, "pass");
}

TEST(ProofCli, ADirectoryThatIsNotThereIsAnInputError) {
  CommandResult r = runCommand(cliPath() + " proof /nonexistent/gpu-proof");
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/gpu-proof: not a directory gpu-proof.sh wrote"));
}

// --- policy verify, as a command ---------------------------------------------------------------------------------

// Logs of another policy prove nothing about this one, an input error (3) as an unusable policy is; 1 is kept for a
// mismatch in a run of the policy itself (docs/ab-testing.md, "Exit status").
TEST(PolicyVerifyCli, ExitsZeroOnTheRunOfItsPolicyThreeOnAnotherOrAnUnusablePolicy) {
  std::string inference = sourcePath(kFirstRun + "/sweep/policy-inference/rep-1.log");
  CommandResult ok = runCommand(cliPath() + " policy verify --policy inference " + inference + " --format json");
  ASSERT_EQ(ok.exitCode, 0) << ok.err;
  nlohmann::json j = nlohmann::json::parse(ok.out);
  EXPECT_EQ(j["schema"], "nccl-roce.policy-verify/1");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["summary"]["match"], 12);
  EXPECT_EQ(j["summary"]["tuning_lines"], 1249);
  EXPECT_EQ(j["processes"][0]["tuner"], "nccl-roce");

  CommandResult other =
      runCommand(cliPath() + " policy verify --policy inference " + sourcePath(kFirstRun + "/sweep/default"));
  EXPECT_EQ(other.exitCode, 3);
  EXPECT_THAT(other.out, HasSubstr("problem: "));
  EXPECT_THAT(other.out, HasSubstr("ran policy 'nccl'"));

  CommandResult unusable = runCommand(cliPath() + " policy verify --policy /nonexistent.toml " + inference);
  EXPECT_EQ(unusable.exitCode, 3);
  EXPECT_THAT(unusable.err, HasSubstr("--policy /nonexistent.toml is unusable"));
}

}  // namespace
}  // namespace nccl_roce::testing
