// Reading what gpu-proof.sh left in OUT for `nccl-roce proof`.
#include <algorithm>

#include "cli/proof.h"
#include "common/directory_walk.h"
#include "common/file.h"
#include "common/strings.h"
#include "nccl-tests-integration/sweep/log_files.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"

namespace nccl_roce::cli::proof {

namespace {

constexpr size_t kMaxEntries = 100000;
constexpr size_t kMaxStatsBytes = size_t{64} << 20;

bool isStatsName(const std::string& name) {
  return startsWith(name, "stats.") && endsWith(name, ".json");
}

// What gpu-proof.sh writes into a group: OUT/<group>/stats.<pid>.json and OUT/<group>/<configuration>/*.log, *.out.
DirectoryWalk groupWalk() {
  DirectoryWalk walk;
  walk.maxDepth = 2;
  walk.maxEntries = kMaxEntries;
  walk.wanted = [](const std::string& name) {
    return isStatsName(name) || endsWith(name, ".log") || endsWith(name, ".out");
  };
  walk.order = [](const std::string& a, const std::string& b) { return naturalLess(a, b); };
  return walk;
}

Status readConfiguration(const std::string& out, const std::string& relative, const std::vector<FoundFile>& files,
                         Configuration* c) {
  c->label = relative.substr(relative.find('/') + 1);
  c->dir = out + "/" + relative;
  for (const FoundFile& file : files) {
    if (file.relative.compare(0, relative.size() + 1, relative + "/") != 0) continue;
    bool rankZero = endsWith(file.relative, ".log"), otherRank = endsWith(file.relative, ".out");
    if (!rankZero && !otherRank) continue;
    const std::string path = file.path();
    StatusOr<std::string> text = readFoundFile(file, sweep::kMaxLogBytes);
    if (!text.isOk()) return text.status();
    c->nccl.push_back(inspect::parseNcclInfoLog(*text, path));
    for (const driver::IssuedLine& line : driver::issuedLinesOf(*text)) c->issued.push_back(line);
    if (!rankZero) continue;
    c->tables.push_back(sweep::parsePerfLog(*text, path));
    for (const sweep::PerfRun& run : c->tables.back().runs) {
      auto policy = run.environment.find("NCCL_ROCE_POLICY");
      if (policy != run.environment.end() && c->policy.empty()) c->policy = policy->second;
    }
  }
  return Status::ok();
}

// OUT/<name>, read beneath OUT; a group that is not there is no error (its check says so).
Status readGroup(const std::string& out, const std::string& name, Group* group, std::vector<SkippedEntry>* skipped) {
  StatusOr<WalkResult> walked = walkDirectory(out, groupWalk(), name);
  if (!walked.isOk()) return walked.status().code() == StatusCode::kNotFound ? Status::ok() : walked.status();
  skipped->insert(skipped->end(), walked->skipped.begin(), walked->skipped.end());
  if (walked->directories.empty()) return Status::ok();  // a link or a file, named in `skipped`
  group->name = name;
  group->dir = out + "/" + name;
  for (const FoundFile& file : walked->files) {
    const std::string entry = file.relative.substr(name.size() + 1);
    if (entry.find('/') != std::string::npos || !isStatsName(entry)) continue;
    StatusOr<std::string> text = readFoundFile(file, kMaxStatsBytes);
    if (!text.isOk()) return text.status();
    StatusOr<telemetry::StatsFile> parsed = telemetry::parseStatsFile(*text, file.path());
    if (!parsed.isOk()) return parsed.status();
    group->stats.emplace_back(file.path(), *parsed);
    group->statsTexts.push_back(*text);
  }
  for (const std::string& directory : walked->directories) {
    if (directory == name) continue;  // the group itself; the others are its configurations
    Configuration c;
    Status s = readConfiguration(out, directory, walked->files, &c);
    if (!s.isOk()) return s;
    group->configurations.push_back(std::move(c));
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
  if (!listDirectory(dir, kMaxEntries).isOk()) {
    return Status(StatusCode::kNotFound, dir + ": not a directory gpu-proof.sh wrote");
  }
  Inputs in;
  in.dir = dir;
  StatusOr<std::string> setup = readFoundFile({dir, "setup.txt"}, 1 << 20);
  if (!setup.isOk() && setup.status().code() != StatusCode::kNotFound) {
    std::string why = setup.status().message();
    in.skipped.push_back({dir + "/setup.txt", why.substr(why.rfind(": ") + 2)});
  }
  if (setup.isOk()) {
    for (std::string_view line : split(*setup, '\n')) {
      size_t colon = line.find(": ");
      if (colon == std::string_view::npos || startsWith(trim(line), "#")) continue;
      in.setup.emplace_back(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 2))));
    }
  }
  for (auto [name, group] :
       {std::pair<const char*, Group*>{"sweep", &in.sweep}, {"graph", &in.graph}, {"switchback", &in.switchback}}) {
    Status s = readGroup(dir, name, group, &in.skipped);
    if (!s.isOk()) return s;
  }
  return in;
}

}  // namespace nccl_roce::cli::proof
