#include "inspect/nccl_info_log.h"

#include <cstdlib>
#include <utility>

#include "common/log.h"
#include "common/strings.h"
#include "inspect/nccl_log_line.h"

namespace nccl_roce::inspect {

namespace {

// The communicator's pointer NCCL prints: "0x" and hex digits, up to a space, comma or parenthesis.
std::optional<uint64_t> takeHex(std::string_view* text) {
  size_t n = 0;
  while (n < text->size() && (*text)[n] != ' ' && (*text)[n] != ',' && (*text)[n] != ')') ++n;
  std::optional<uint64_t> value = parseHexId(text->substr(0, n));
  if (value) text->remove_prefix(n);
  return value;
}

std::optional<int> smallInt(std::optional<uint64_t> value) {
  if (!value || *value > (1u << 30)) return std::nullopt;
  return static_cast<int>(*value);
}

// "comm 0x558df9d6dd40 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0"
std::optional<NcclCommunicatorLine> parseCommunicatorMessage(std::string_view m) {
  NcclCommunicatorLine c;
  std::optional<uint64_t> comm, rank, nRanks, nNodes;
  if (!consumePrefix(&m, "comm ") || !(comm = takeHex(&m)) || !consumePrefix(&m, " rank ") ||
      !(rank = consumeUnsigned(&m)) || !consumePrefix(&m, " nRanks ") || !(nRanks = consumeUnsigned(&m)) ||
      !consumePrefix(&m, " nNodes ") || !(nNodes = consumeUnsigned(&m)) || !startsWith(m, " localRanks ")) {
    return std::nullopt;
  }
  std::optional<int> r = smallInt(rank), n = smallInt(nRanks), nodes = smallInt(nNodes);
  if (!r || !n || !nodes) return std::nullopt;
  c.comm = *comm;
  c.rank = *r;
  c.nRanks = *n;
  c.nNodes = *nodes;
  return c;
}

// One process's state while its lines are read: where its current table block puts its cells.
struct ProcessState {
  NcclProcessLog log;
  std::vector<int> blockAlgorithms;  // the algorithms of the table block being read, -1 for names not known
  int tableLine = 0;
  std::vector<size_t> openTunings;  // tunerCalls whose Best tuning line is still to come (NCCL nests them)
};

// "  Algorithm   |   Tree   |   Ring   |  CollNetDirect  |": a new block of the table.
bool readTableHeader(std::string_view m, int line, ProcessState* p) {
  std::vector<std::string_view> cells = split(m, '|');
  if (cells.size() < 2 || trim(cells[0]) != "Algorithm") return false;
  p->blockAlgorithms.clear();
  for (size_t i = 1; i < cells.size(); ++i) {
    std::string_view name = trim(cells[i]);
    if (name.empty()) continue;
    std::optional<int> algorithm = telemetry::parseAlgorithm(name);
    p->blockAlgorithms.push_back(algorithm ? *algorithm : -1);
  }
  if (p->blockAlgorithms.empty() || p->log.communicators.empty()) return true;
  NcclCommunicatorLine& comm = p->log.communicators.back();
  if (!comm.availability) {
    comm.availability.emplace();
    comm.availability->line = line;
  }
  for (int a : p->blockAlgorithms) {
    if (a >= comm.availability->numAlgorithms) comm.availability->numAlgorithms = a + 1;
  }
  return true;
}

// "    AllReduce |    16.8/   0.2 |    31.0/   0.0 | ...": which entries of the block have a bandwidth.
bool readTableRow(std::string_view m, ProcessState* p) {
  if (p->blockAlgorithms.empty() || p->log.communicators.empty() || !p->log.communicators.back().availability) {
    return false;
  }
  std::vector<std::string_view> cells = split(m, '|');
  if (cells.size() < 2) return false;
  std::optional<int> collective = telemetry::parseCollective(trim(cells[0]));
  if (!collective) return false;
  NcclAvailability& table = *p->log.communicators.back().availability;
  for (size_t i = 1; i < cells.size(); ++i) {
    size_t index = i - 1;
    size_t block = index / telemetry::kNumProtocols;
    std::string_view cell = trim(cells[i]);
    if (cell.empty() || block >= p->blockAlgorithms.size()) continue;
    int algorithm = p->blockAlgorithms[block];
    size_t slash = cell.find('/');
    if (algorithm < 0 || slash == std::string_view::npos) continue;
    std::string bandwidth(trim(cell.substr(slash + 1)));
    char* end = nullptr;
    double bw = std::strtod(bandwidth.c_str(), &end);
    bool parsed = end != bandwidth.c_str() && *end == '\0';
    table.offered[*collective][algorithm][index % telemetry::kNumProtocols] = parsed && bw > 0.0;
  }
  return true;
}

// NCCL 2.23's TUNING line: "AllReduce: 8 Bytes -> Algo 1 proto 0 time 10.400000".
bool isOlderTuning(std::string_view m) {
  size_t algo = m.find(" Bytes -> Algo ");
  if (algo == std::string_view::npos) return false;
  std::string_view rest = m.substr(algo + 15);
  return consumeUnsigned(&rest) && consumePrefix(&rest, " proto ") && consumeUnsigned(&rest) &&
         startsWith(rest, " time ");
}

// Whether a message begins like a TUNING line ("Name: 123 Bytes -> "), parsed or not.
bool looksLikeTuning(std::string_view m) {
  size_t colon = m.find(": ");
  return colon != std::string_view::npos && colon < 16 && m.find(" Bytes -> ") != std::string_view::npos;
}

// One of our lines: what follows the prefix our logger adds (common/log.h).
std::optional<std::string_view> ours(std::string_view m) {
  if (!consumePrefix(&m, kNcclLogPrefix) || !consumePrefix(&m, ": ")) return std::nullopt;
  return m;
}

// Our tuner's line at a communicator's init.
std::optional<telemetry::TunerInfoLine> parseOurTunerLine(std::string_view m) {
  std::optional<std::string_view> message = ours(m);
  return message ? telemetry::parseTunerInfoLine(*message) : std::nullopt;
}

// The value of ` key = value` in a braced NCCL struct dump ("{ .func = AllReduce, .nBytes = 8 }"): up to the next
// ',' or ' }'.
std::optional<std::string_view> fieldOf(std::string_view m, std::string_view key) {
  size_t at = m.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = m.substr(at + key.size());
  size_t end = rest.find_first_of(", }");
  return rest.substr(0, end);
}

std::optional<uint64_t> numberOf(std::string_view m, std::string_view key) {
  std::optional<std::string_view> text = fieldOf(m, key);
  return text ? parseUnsigned(*text) : std::nullopt;
}

std::optional<int> intOf(std::string_view m, std::string_view key) {
  std::optional<std::string_view> text = fieldOf(m, key);
  if (text && startsWith(*text, "-")) return std::nullopt;
  return smallInt(text ? parseUnsigned(*text) : std::nullopt);
}

}  // namespace

std::optional<NcclTunerCall> parseTuningInputMessage(std::string_view m) {
  if (!consumePrefix(&m, "Input: { ")) return std::nullopt;
  NcclTunerCall c;
  std::optional<std::string_view> comm = fieldOf(m, ".comm = "), mask = fieldOf(m, ".tuningMask = "),
                                  func = fieldOf(m, ".func = ");
  std::optional<uint64_t> bytes = numberOf(m, ".nBytes = ");
  std::optional<int> pipeOps = intOf(m, ".numPipesOps = "), regBuff = intOf(m, ".regBuff = ");
  std::optional<int> collective = func ? telemetry::parseCollective(*func) : std::nullopt;
  if (!comm || !mask || !collective || !bytes || !pipeOps || !regBuff) return std::nullopt;
  c.comm = parseHexId(*comm).value_or(0);
  c.tuningMask = parseHexId(*mask).value_or(0);
  c.collective = *collective;
  c.bytes = *bytes;
  c.pipeOps = *pipeOps;
  c.regBuff = *regBuff;
  return c;
}

bool parseBestTuningMessage(std::string_view m, NcclTunerCall* call) {
  if (!consumePrefix(&m, "Best tuning { ")) return false;
  std::optional<std::string_view> algo = fieldOf(m, ".algo = "), proto = fieldOf(m, ".proto = ");
  std::optional<int> channels = intOf(m, " nChannels = "), maxChannels = intOf(m, " maxChannels = ");
  if (!algo || !proto || !channels || !maxChannels) return false;
  std::optional<int> a = telemetry::parseAlgorithm(*algo), p = telemetry::parseProtocol(*proto);
  call->algorithm = a && p ? *a : -1;  // "Unknown" for a symmetric kernel's tuning
  call->protocol = a && p ? *p : -1;
  call->channels = *channels;
  call->maxChannels = *maxChannels;
  return true;
}

std::optional<NcclTuningLine> parseTuningMessage(std::string_view m) {
  NcclTuningLine t;
  std::optional<std::string_view> name = consumeUntil(&m, ": ");
  if (!name) return std::nullopt;
  std::optional<int> collective = telemetry::parseCollective(*name);
  std::optional<uint64_t> bytes, lo, hi;
  std::optional<std::string_view> algorithm, protocol;
  if (!collective || !consumePrefix(&m, ": ") || !(bytes = consumeUnsigned(&m)) ||
      !consumePrefix(&m, " Bytes -> Algo ") || !(algorithm = consumeUntil(&m, " ")) || !consumePrefix(&m, " proto ") ||
      !(protocol = consumeUntil(&m, " ")) || !consumePrefix(&m, " channel{Lo..Hi}={") || !(lo = consumeUnsigned(&m)) ||
      !consumePrefix(&m, "..") || !(hi = consumeUnsigned(&m)) || !consumePrefix(&m, "}")) {
    return std::nullopt;
  }
  std::optional<int> a = telemetry::parseAlgorithm(*algorithm), p = telemetry::parseProtocol(*protocol);
  std::optional<int> channelLo = smallInt(lo), channelHi = smallInt(hi);
  if (!a || !p || !channelLo || !channelHi || *channelHi < *channelLo) return std::nullopt;
  t.collective = *collective;
  t.bytes = *bytes;
  t.algorithm = *a;
  t.protocol = *p;
  t.channelLo = *channelLo;
  t.channelHi = *channelHi;
  // Some builds go on with " comm 0x..." (and newer ones " cgaClusterSize N"): the communicator where named.
  size_t comm = m.find(" comm ");
  if (comm != std::string_view::npos) {
    std::string_view rest = m.substr(comm + 6);
    if (std::optional<uint64_t> pointer = takeHex(&rest)) t.comm = *pointer;
  }
  return t;
}

NcclInfoLog parseNcclInfoLog(std::string_view text, std::string source) {
  NcclInfoLog out;
  out.source = std::move(source);
  std::vector<ProcessState> processes;
  auto processOf = [&](const std::string& host, int64_t pid) -> ProcessState& {
    for (ProcessState& p : processes) {
      if (p.log.pid == pid && p.log.host == host) return p;
    }
    processes.emplace_back();
    processes.back().log.host = host;
    processes.back().log.pid = pid;
    return processes.back();
  };
  int number = 0;
  for (std::string_view line : split(text, '\n')) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::optional<NcclLogLine> logLine = parseNcclLogLine(line);
    if (!logLine || (logLine->level != NcclLogLevel::kInfo && logLine->level != NcclLogLevel::kWarn)) continue;
    const bool warn = logLine->level == NcclLogLevel::kWarn;
    std::string host;
    int64_t pid = 0;
    if (!parseNcclLogOrigin(logLine->prefix, &host, &pid)) continue;
    std::string_view m = logLine->message;
    ProcessState& p = processOf(host, pid);
    if (warn) {
      std::optional<std::string_view> message = ours(m);
      if (message && startsWith(*message, "tuner: ")) p.log.roceTunerWarnings.emplace_back(m);
      continue;
    }
    if (std::optional<NcclTuningLine> tuning = parseTuningMessage(m)) {
      tuning->line = number;
      p.log.tuning.push_back(*tuning);
    } else if (looksLikeTuning(m) && telemetry::parseCollective(m.substr(0, m.find(':')))) {
      ++(isOlderTuning(m) ? out.olderTuningLines : out.malformedTuningLines);
    } else if (std::optional<NcclCommunicatorLine> comm = parseCommunicatorMessage(m)) {
      comm->line = number;
      p.log.communicators.push_back(*comm);
      p.blockAlgorithms.clear();
    } else if (readTableHeader(m, number, &p) || readTableRow(m, &p)) {
      continue;
    } else if (std::optional<telemetry::TunerInfoLine> tuner = parseOurTunerLine(m)) {
      RoceTunerLine read;
      static_cast<telemetry::TunerInfoLine&>(read) = std::move(*tuner);
      read.line = number;
      p.log.roceTuners.push_back(std::move(read));
    } else if (std::optional<NcclTunerCall> input = parseTuningInputMessage(m)) {
      input->line = number;
      p.openTunings.push_back(p.log.tunerCalls.size());
      p.log.tunerCalls.push_back(*input);
    } else if (startsWith(m, "Best tuning { ")) {
      if (!p.openTunings.empty()) {
        parseBestTuningMessage(m, &p.log.tunerCalls[p.openTunings.back()]);
        p.openTunings.pop_back();
      }
    } else if (startsWith(m, "Best tuning, algorithm, ")) {
      ++p.log.bestTuningLines;
    } else if (consumePrefix(&m, "TUNER/Plugin: Using ")) {
      p.log.tunerPlugin = std::string(m.substr(0, m.find(" (")));
    } else if (consumePrefix(&m, "ENV/Plugin: Using ")) {
      p.log.envPlugin = std::string(m.substr(0, m.find(" (")));
    } else if (consumePrefix(&m, "NET/Plugin: Loaded net plugin ")) {
      p.log.netPlugin = std::string(m.substr(0, m.find(" (")));
    } else if (consumePrefix(&m, "PROFILER/Plugin: Loaded ")) {
      p.log.profilerPlugin = std::string(m.substr(0, m.find(" (")));
    } else if (startsWith(m, "NCCL version ")) {
      if (std::optional<std::string_view> version = findNcclVersion(m)) p.log.ncclVersion = ncclRelease(*version);
    }
  }
  for (ProcessState& p : processes) out.processes.push_back(std::move(p.log));
  return out;
}

}  // namespace nccl_roce::inspect
