#include "cli/fleet_inputs.h"

#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/file.h"
#include "common/strings.h"
#include "fleet/inspector_reader.h"
#include "fleet/telemetry_reader.h"

namespace nccl_roce::cli {

namespace {

bool isDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Files under a directory (recursively) that can hold statistics or Inspector records.
void listFiles(const std::string& dir, std::vector<std::string>& out) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string path = dir + "/" + name;
    if (isDirectory(path)) {
      listFiles(path, out);
    } else if (endsWith(name, ".json") || endsWith(name, ".jsonl") || endsWith(name, ".log")) {
      out.push_back(path);
    }
  }
  ::closedir(d);
}

// Files, directories and (quoted) globs, expanded, sorted, each once.
std::vector<std::string> expandInputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    glob_t matches{};
    if (input.find_first_of("*?[") != std::string::npos && ::glob(input.c_str(), 0, nullptr, &matches) == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) {
        std::string path = matches.gl_pathv[i];
        isDirectory(path) ? listFiles(path, files) : files.push_back(path);
      }
    } else {
      isDirectory(input) ? listFiles(input, files) : files.push_back(input);
    }
    ::globfree(&matches);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// Ours say so in their first bytes ("schema"); anything with Inspector's header is Inspector's.
bool looksLikeInspector(const std::string& text) {
  return text.find("\"inspector_output_format_version\"") != std::string::npos &&
         text.find("nccl-roce.stats/") == std::string::npos;
}

Status readInputs(const std::vector<std::string>& files, std::vector<fleet::CommunicatorRecord>& statistics,
                  std::vector<fleet::CommunicatorRecord>& inspector) {
  for (const std::string& file : files) {
    StatusOr<std::string> text = readFileBounded(file, size_t{1} << 30);
    if (!text.isOk()) return text.status();
    bool fromInspector = looksLikeInspector(*text);
    auto records = fromInspector ? fleet::parseInspectorDump(*text, file) : fleet::parseTelemetryFile(*text, file);
    if (!records.isOk()) return records.status();
    auto& into = fromInspector ? inspector : statistics;
    into.insert(into.end(), records->begin(), records->end());
  }
  return Status::ok();
}

}  // namespace

StatusOr<fleet::Fleet> readFleet(const std::vector<std::string>& inputs) {
  std::vector<std::string> files = expandInputs(inputs);
  if (files.empty()) return Status(StatusCode::kNotFound, "no statistics file found in the inputs given");
  std::vector<fleet::CommunicatorRecord> statistics, inspector;
  Status read = readInputs(files, statistics, inspector);
  if (!read.isOk()) return read;
  return fleet::assembleFleet(statistics, inspector);
}

}  // namespace nccl_roce::cli
