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

bool isLogName(const std::string& name) { return endsWith(name, ".log") || endsWith(name, ".txt"); }

// Appends the logs under `dir` in natural order, files and subdirectories interleaved by name.
Status collectDirectory(const std::string& dir, int depth, std::vector<std::string>* out) {
  StatusOr<std::vector<std::string>> names = listDirectory(dir, kMaxDirectoryEntries);
  if (!names.isOk()) return names.status();
  std::vector<std::string> sorted = *names;
  std::sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) { return naturalLess(a, b); });
  for (const std::string& name : sorted) {
    if (startsWith(name, ".")) continue;
    std::string full = dir + "/" + name;
    struct stat st;
    if (::stat(full.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode) && depth < kMaxDepth) {
      Status status = collectDirectory(full, depth + 1, out);
      if (!status.isOk()) return status;
    } else if (S_ISREG(st.st_mode) && isLogName(name)) {
      out->push_back(full);
    }
  }
  return Status::ok();
}

}  // namespace

StatusOr<std::vector<std::string>> expandLogPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return statusFromErrno(errno, path);
    if (!S_ISDIR(st.st_mode)) {
      out.push_back(path);
      continue;
    }
    size_t before = out.size();
    Status status = collectDirectory(path, 1, &out);
    if (!status.isOk()) return status;
    if (out.size() == before) {
      return Status(StatusCode::kInvalidArgument, path + ": directory holds no *.log or *.txt files");
    }
  }
  return out;
}

StatusOr<PerfLog> readPerfLog(const std::string& path) {
  StatusOr<std::string> text = readFileBounded(path, kMaxLogBytes);
  if (!text.isOk()) return text.status();
  PerfLog log = parsePerfLog(*text, path);
  log.textSha256 = sha256Hex(*text);
  return log;
}

StatusOr<std::vector<PerfLog>> readPerfLogs(const std::vector<std::string>& paths) {
  StatusOr<std::vector<std::string>> files = expandLogPaths(paths);
  if (!files.isOk()) return files.status();
  std::vector<PerfLog> logs;
  for (const std::string& file : *files) {
    StatusOr<PerfLog> log = readPerfLog(file);
    if (!log.isOk()) return log.status();
    logs.push_back(std::move(*log));
  }
  return logs;
}

}  // namespace nccl_roce::sweep
