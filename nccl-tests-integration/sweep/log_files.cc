#include "nccl-tests-integration/sweep/log_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "common/file.h"
#include "common/sha256.h"
#include "common/strings.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"

namespace nccl_roce::sweep {

namespace {

constexpr size_t kMaxDirectoryEntries = 100000;
constexpr int kMaxDepth = 4;  // run-sweep.sh writes OUT/<configuration>/rep-N.log

bool isLogName(const std::string& name) {
  return endsWith(name, ".log") || endsWith(name, ".txt");
}

DirectoryWalk logWalk() {
  DirectoryWalk walk;
  walk.maxDepth = kMaxDepth;
  walk.maxEntries = kMaxDirectoryEntries;
  walk.wanted = isLogName;
  walk.order = [](const std::string& a, const std::string& b) { return naturalLess(a, b); };
  walk.skipHidden = true;
  return walk;
}

}  // namespace

StatusOr<LogFiles> expandLogPaths(const std::vector<std::string>& paths) {
  LogFiles out;
  for (const std::string& path : paths) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return statusFromErrno(errno, path);
    if (!S_ISDIR(st.st_mode)) {
      out.files.push_back({"", path});
      continue;
    }
    StatusOr<WalkResult> walked = walkDirectory(path, logWalk());
    if (!walked.isOk()) return walked.status();
    out.skipped.insert(out.skipped.end(), walked->skipped.begin(), walked->skipped.end());
    if (walked->files.empty()) {
      std::string skipped;
      for (const SkippedEntry& s : walked->skipped) skipped += "; skipped " + s.path + ": " + s.why;
      return Status(StatusCode::kInvalidArgument, path + ": directory holds no *.log or *.txt files" + skipped);
    }
    out.files.insert(out.files.end(), walked->files.begin(), walked->files.end());
  }
  return out;
}

StatusOr<PerfLog> readPerfLog(const FoundFile& file) {
  StatusOr<std::string> text = readFoundFile(file, kMaxLogBytes);
  if (!text.isOk()) return text.status();
  PerfLog log = parsePerfLog(*text, file.path());
  log.textSha256 = sha256Hex(*text);
  return log;
}

StatusOr<PerfLog> readPerfLog(const std::string& path) {
  return readPerfLog(FoundFile{"", path});
}

StatusOr<std::vector<PerfLog>> readPerfLogs(const std::vector<std::string>& paths, std::vector<SkippedEntry>* skipped) {
  StatusOr<LogFiles> files = expandLogPaths(paths);
  if (!files.isOk()) return files.status();
  if (skipped != nullptr) skipped->insert(skipped->end(), files->skipped.begin(), files->skipped.end());
  std::vector<PerfLog> logs;
  for (const FoundFile& file : files->files) {
    StatusOr<PerfLog> log = readPerfLog(file);
    if (!log.isOk()) return log.status();
    logs.push_back(std::move(*log));
  }
  return logs;
}

}  // namespace nccl_roce::sweep
