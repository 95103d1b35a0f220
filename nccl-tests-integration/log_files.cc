#include "nccl-tests-integration/log_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "common/file.h"
#include "common/strings.h"
#include "nccl-tests-integration/perf_log_parser.h"

namespace nccl_roce::sweep {

namespace {
constexpr size_t kMaxDirectoryEntries = 100000;
}

StatusOr<std::vector<std::string>> expandLogPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return statusFromErrno(errno, path);
    if (!S_ISDIR(st.st_mode)) {
      out.push_back(path);
      continue;
    }
    StatusOr<std::vector<std::string>> names = listDirectory(path, kMaxDirectoryEntries);
    if (!names.isOk()) return names.status();
    std::vector<std::string> logs;
    for (const std::string& name : *names) {
      if (startsWith(name, ".") || !(endsWith(name, ".log") || endsWith(name, ".txt"))) continue;
      std::string full = path + "/" + name;
      struct stat entry;
      if (::stat(full.c_str(), &entry) == 0 && S_ISREG(entry.st_mode)) logs.push_back(name);
    }
    if (logs.empty()) {
      return Status(StatusCode::kInvalidArgument, path + ": directory holds no *.log or *.txt files");
    }
    std::sort(logs.begin(), logs.end(), [](const std::string& a, const std::string& b) { return naturalLess(a, b); });
    for (const std::string& name : logs) out.push_back(path + "/" + name);
  }
  return out;
}

StatusOr<PerfLog> readPerfLog(const std::string& path) {
  StatusOr<std::string> text = readFileBounded(path, kMaxLogBytes);
  if (!text.isOk()) return text.status();
  return parsePerfLog(*text, path);
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
