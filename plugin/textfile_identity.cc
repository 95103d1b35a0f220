#include "plugin/textfile_identity.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/file.h"
#include "common/strings.h"

namespace nccl_roce::plugin {

namespace {

// A label value as it may stand in a file name: what pod and namespace names hold (letters, digits, '-', '.'),
// anything else as '_'.
std::string fileSafe(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    out += safe ? c : '_';
  }
  return out.empty() ? "_" : out;
}

std::string valueOr(const Environment& env, const char* name, const std::string& otherwise) {
  std::optional<std::string> value = env.get(name);
  return value && !value->empty() ? *value : otherwise;
}

}  // namespace

bool isOurTextfile(const std::string& name) {
  if (isTemporaryFileOf(name, "nccl-roce.")) return true;
  return startsWith(name, "nccl-roce.") && (endsWith(name, ".prom") || name.find(".prom.tmp.") != std::string::npos);
}

TextfileIdentity textfileIdentity(const Environment& env, const std::string& hostName, long pid, uint64_t startTicks) {
  TextfileIdentity id;
  id.labels.podNamespace = valueOr(env, "POD_NAMESPACE", "");
  id.labels.pod = valueOr(env, "POD_NAME", hostName);
  id.labels.node = valueOr(env, "NODE_NAME", hostName);
  id.labels.pid = pid;
  id.fileName = "nccl-roce." + (id.labels.podNamespace.empty() ? "" : fileSafe(id.labels.podNamespace) + ".") +
                fileSafe(id.labels.pod) + "." + std::to_string(pid) + "." + std::to_string(startTicks) + ".prom";
  return id;
}

uint64_t processStartTicks(const std::string& statPath) {
  std::ifstream in(statPath);
  std::string line;
  if (!std::getline(in, line)) return 0;
  // The command name (field 2) is in parentheses and may hold spaces or ')': fields 3.. follow the last ')'.
  size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  for (int number = 3; fields >> field; ++number) {
    if (number == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

}  // namespace nccl_roce::plugin
