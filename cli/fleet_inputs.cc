#include "cli/fleet_inputs.h"

#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/file.h"
#include "common/strings.h"
#include "fleet/fleet_files.h"

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

}  // namespace

StatusOr<fleet::Fleet> readFleet(const std::vector<std::string>& inputs, bool strict) {
  std::vector<std::string> files = expandInputs(inputs);
  if (files.empty()) return Status(StatusCode::kNotFound, "no statistics file found in the inputs given");
  fleet::FleetReader reader;
  for (const std::string& file : files) {
    StatusOr<std::string> text = readFileBounded(file, size_t{1} << 30);
    if (!text.isOk()) return text.status();
    Status added = reader.add(file, *text);
    if (!added.isOk()) return added;
  }
  StatusOr<fleet::Fleet> fleet = reader.assemble();
  if (!fleet.isOk() || !strict || fleet->skipped.empty()) return fleet;
  std::string skipped;
  for (const fleet::SkippedInput& s : fleet->skipped) skipped += (skipped.empty() ? "" : "; ") + s.file + ": " + s.why;
  return Status(StatusCode::kInvalidArgument,
                "--strict: " + std::to_string(fleet->skipped.size()) + " input(s) could not be read whole: " + skipped);
}

void addStrictOption(CLI::App& command, bool& strict) {
  command.add_flag("--strict", strict,
                   "Exit 2 when an input is skipped (empty, of neither format, or a dump's last record cut short) "
                   "instead of listing it and going on");
}

}  // namespace nccl_roce::cli
