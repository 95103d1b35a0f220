// Reading what gpu-proof.sh left in OUT for `nccl-roce proof`.
#include <algorithm>

#include "cli/proof.h"
#include "common/file.h"
#include "common/strings.h"
#include "nccl-tests-integration/sweep/log_files.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"

namespace nccl_roce::cli::proof {

namespace {

constexpr size_t kMaxEntries = 100000;
constexpr size_t kMaxStatsBytes = size_t{64} << 20;

bool isDirectory(const std::string& path) {
  return listDirectory(path, kMaxEntries).isOk();
}

std::vector<std::string> sortedNames(const std::string& dir) {
  StatusOr<std::vector<std::string>> names = listDirectory(dir, kMaxEntries);
  std::vector<std::string> out = names.isOk() ? *names : std::vector<std::string>{};
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return naturalLess(a, b); });
  return out;
}

Status readConfiguration(const std::string& dir, const std::string& label, Configuration* out) {
  out->label = label;
  out->dir = dir;
  for (const std::string& name : sortedNames(dir)) {
    bool rankZero = endsWith(name, ".log"), otherRank = endsWith(name, ".out");
    if (!rankZero && !otherRank) continue;
    std::string path = dir + "/" + name;
    StatusOr<std::string> text = readFileBounded(path, sweep::kMaxLogBytes);
    if (!text.isOk()) return text.status();
    out->nccl.push_back(inspect::parseNcclInfoLog(*text, path));
    for (const driver::IssuedLine& line : driver::issuedLinesOf(*text)) out->issued.push_back(line);
    if (!rankZero) continue;
    out->tables.push_back(sweep::parsePerfLog(*text, path));
    for (const sweep::PerfRun& run : out->tables.back().runs) {
      auto policy = run.environment.find("NCCL_ROCE_POLICY");
      if (policy != run.environment.end() && out->policy.empty()) out->policy = policy->second;
    }
  }
  return Status::ok();
}

Status readGroup(const std::string& dir, const std::string& name, Group* out) {
  out->name = name;
  out->dir = dir;
  for (const std::string& entry : sortedNames(dir)) {
    std::string path = dir + "/" + entry;
    if (startsWith(entry, "stats.") && endsWith(entry, ".json")) {
      StatusOr<std::string> text = readFileBounded(path, kMaxStatsBytes);
      if (!text.isOk()) return text.status();
      StatusOr<telemetry::StatsFile> parsed = telemetry::parseStatsFile(*text, path);
      if (!parsed.isOk()) return parsed.status();
      out->stats.emplace_back(path, *parsed);
      out->statsTexts.push_back(*text);
    } else if (isDirectory(path)) {
      Configuration c;
      Status s = readConfiguration(path, entry, &c);
      if (!s.isOk()) return s;
      out->configurations.push_back(std::move(c));
    }
  }
  return Status::ok();
}

}  // namespace

const Configuration* Group::find(const std::string& label) const {
  for (const Configuration& c : configurations) {
    if (c.label == label) return &c;
  }
  return nullptr;
}

const Configuration* Group::policyRun() const {
  const Configuration* found = nullptr;
  for (const Configuration& c : configurations) {
    if (!startsWith(c.label, "policy-")) continue;
    if (found != nullptr) return nullptr;
    found = &c;
  }
  return found;
}

std::string Inputs::setupValue(const std::string& key) const {
  for (const auto& [k, v] : setup) {
    if (k == key) return v;
  }
  return "";
}

StatusOr<Inputs> readInputs(const std::string& dir) {
  if (!isDirectory(dir)) return Status(StatusCode::kNotFound, dir + ": not a directory gpu-proof.sh wrote");
  Inputs in;
  in.dir = dir;
  StatusOr<std::string> setup = readFileBounded(dir + "/setup.txt", 1 << 20);
  if (setup.isOk()) {
    for (std::string_view line : split(*setup, '\n')) {
      size_t colon = line.find(": ");
      if (colon == std::string_view::npos || startsWith(trim(line), "#")) continue;
      in.setup.emplace_back(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 2))));
    }
  }
  for (auto [name, group] :
       {std::pair<const char*, Group*>{"sweep", &in.sweep}, {"graph", &in.graph}, {"switchback", &in.switchback}}) {
    std::string path = dir + "/" + name;
    if (!isDirectory(path)) continue;
    Status s = readGroup(path, name, group);
    if (!s.isOk()) return s;
  }
  return in;
}

}  // namespace nccl_roce::cli::proof
