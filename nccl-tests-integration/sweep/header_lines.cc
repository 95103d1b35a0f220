#include "nccl-tests-integration/sweep/header_lines.h"

#include <vector>

#include "common/strings.h"
#include "nccl-tests-integration/sweep/log_text.h"

namespace nccl_roce::sweep {

namespace {

std::optional<int64_t> intAt(const std::vector<std::string_view>& f, size_t i) {
  return i < f.size() ? parseSigned(f[i]) : std::nullopt;
}

std::optional<uint64_t> unsignedAt(const std::vector<std::string_view>& f, size_t i) {
  return i < f.size() ? parseUnsigned(f[i]) : std::nullopt;
}

}  // namespace

std::optional<RunParameters> parseParameterLine(std::string_view body) {
  std::vector<std::string_view> f = splitFields(body);
  if (f.size() < 2 || f[0] != "nThread") return std::nullopt;
  RunParameters p;
  for (size_t i = 0; i < f.size(); ++i) {
    std::string_view key = f[i];
    if (key == "nThread")
      p.threads = intAt(f, i + 1);
    else if (key == "nGpus")
      p.gpusPerThread = intAt(f, i + 1);
    else if (key == "minBytes")
      p.minBytes = unsignedAt(f, i + 1);
    else if (key == "maxBytes")
      p.maxBytes = unsignedAt(f, i + 1);
    else if (key == "step:" && i + 1 < f.size()) {
      std::string_view step = f[i + 1];
      size_t paren = step.find('(');
      std::optional<uint64_t> value = parseUnsigned(step.substr(0, paren));
      if (paren != std::string_view::npos && step.substr(paren) == "(factor)")
        p.stepFactor = value;
      else if (paren != std::string_view::npos && step.substr(paren) == "(bytes)")
        p.stepBytes = value;
    } else if (key == "iters:") {
      std::string_view before = i > 0 ? f[i - 1] : std::string_view();
      if (before == "warmup")
        p.warmupIters = intAt(f, i + 1);
      else if (before == "agg")
        p.aggIters = intAt(f, i + 1);
      else
        p.iters = intAt(f, i + 1);
    } else if (key == "validation:")
      p.validation = intAt(f, i + 1);
    else if (key == "graph:")
      p.graph = intAt(f, i + 1);
  }
  if (!p.threads) return std::nullopt;
  return p;
}

std::optional<DeviceLine> parseDeviceLine(std::string_view body) {
  std::vector<std::string_view> f = splitFields(body);
  if (f.size() < 7 || f[0] != "Rank") return std::nullopt;
  DeviceLine d;
  std::optional<int64_t> rank = parseSigned(f[1]);
  if (!rank || *rank < 0 || *rank > (1 << 24)) return std::nullopt;
  d.rank = static_cast<int>(*rank);
  size_t i = 2;
  if (f[i] == "Group") {
    std::optional<int64_t> group = intAt(f, i + 1);
    if (!group) return std::nullopt;
    d.group = static_cast<int>(*group);
    i += 2;
  }
  if (i < f.size() && f[i] == "Pid") {
    d.pid = intAt(f, i + 1);
    if (!d.pid) return std::nullopt;
    i += 2;
  }
  if (i + 3 >= f.size() || f[i] != "on" || f[i + 2] != "device") return std::nullopt;
  d.host = std::string(f[i + 1]);
  std::optional<int64_t> device = parseSigned(f[i + 3]);
  if (!device) return std::nullopt;
  d.device = static_cast<int>(*device);
  i += 4;
  if (i < f.size() && startsWith(f[i], "[") && endsWith(f[i], "]")) {
    d.busId = std::string(f[i].substr(1, f[i].size() - 2));
    // The name keeps its own spacing: everything after the bus id.
    size_t at = static_cast<size_t>(f[i].data() + f[i].size() - body.data());
    d.name = std::string(trim(body.substr(at)));
  }
  return d;
}

std::string ncclVersionFromCode(int64_t code) {
  if (code <= 0) return "";
  int64_t major, minor, patch;
  if (code >= 20900) {
    major = code / 10000;
    minor = (code % 10000) / 100;
    patch = code % 100;
  } else {
    major = code / 1000;
    minor = (code % 1000) / 100;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<std::pair<std::string, std::string>> parseSetByEnvironment(std::string_view message) {
  static constexpr std::string_view kMarker = " set by environment to ";
  size_t pos = message.find(kMarker);
  if (pos == std::string_view::npos) return std::nullopt;
  std::string_view name = trim(message.substr(0, pos));
  if (name.empty() || name.find(' ') != std::string_view::npos) return std::nullopt;
  std::string_view value = trim(message.substr(pos + kMarker.size()));
  if (endsWith(value, ".")) value.remove_suffix(1);
  return std::make_pair(std::string(name), std::string(value));
}

std::string collectiveFromProgram(std::string_view program) {
  size_t slash = program.rfind('/');
  if (slash != std::string_view::npos) program.remove_prefix(slash + 1);
  for (std::string_view suffix : {std::string_view("_perf_mpi"), std::string_view("_perf")}) {
    if (endsWith(program, suffix) && program.size() > suffix.size()) {
      return std::string(program.substr(0, program.size() - suffix.size()));
    }
  }
  return "";
}

std::string collectiveFromCommand(std::string_view command) {
  for (std::string_view word : splitFields(command)) {
    std::string name = collectiveFromProgram(word);
    if (!name.empty()) return name;
  }
  return "";
}

int typeSize(std::string_view type) {
  struct Entry {
    const char* name;
    int bytes;
  };
  static const Entry kTypes[] = {
      {"int8", 1},  {"uint8", 1},  {"f8e4m3", 1},  {"f8e5m2", 1},  {"half", 2},    {"bfloat16", 2},
      {"int32", 4}, {"uint32", 4}, {"float", 4},   {"int64", 8},   {"uint64", 8},  {"double", 8},
      {"char", 1},  {"int", 4},    {"float16", 2}, {"float32", 4}, {"float64", 8},
  };
  for (const Entry& e : kTypes) {
    if (type == e.name) return e.bytes;
  }
  return 0;
}

}  // namespace nccl_roce::sweep
