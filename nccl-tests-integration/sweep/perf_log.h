// What one nccl-tests output file says, as data: runs (one per test invocation or table), their header
// facts and their rows. Built by parsePerfLog (perf_log_parser.h); read by `sweep parse`, compare and fit.
// Every field that a given nccl-tests era or flag does not print is absent (std::nullopt / empty), never 0.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nccl_roce::sweep {

// One half of a row: out-of-place or in-place.
struct PerfHalf {
  std::optional<double> timeUs;  // "time" or "cputime" column, always in microseconds
  std::optional<double> algBwGBs;
  std::optional<double> busBwGBs;
  // "#wrong": count of wrong elements summed over ranks; absent when printed as N/A (-c 0) or when the
  // era printed a maximum deviation instead ("error" 2019-2022, "res" 2017-2019), kept in maxError.
  std::optional<int64_t> wrong;
  std::optional<double> maxError;
  // -I per-iteration columns (nccl-tests 2026-06+): i_min, i_max, i_p99 (us) and i_cv% (percent).
  std::optional<double> iterMinUs, iterMaxUs, iterP99Us, iterCvPct;
};

struct PerfRow {
  int line = 0;                 // 1-based line in the file
  uint64_t size = 0;            // bytes, as printed (for all_gather/reduce_scatter/alltoall: the total over ranks)
  uint64_t count = 0;           // elements, as printed
  std::string type;             // float, double, bfloat16, ...
  std::string redop;            // sum, prod, ..., "none"; empty when the era printed no redop column
  std::optional<int64_t> root;  // -1 for rootless collectives; absent when not printed
  std::optional<PerfHalf> outOfPlace;  // absent on in-place-only lines (trace replay)
  std::optional<PerfHalf> inPlace;
  std::string timestamp;  // -S 1
};

struct DeviceLine {
  int rank = 0;
  std::optional<int> group;
  std::optional<int64_t> pid;
  std::string host;
  int device = 0;
  std::string busId;  // "0x53" or "0000:19:00" as printed
  std::string name;   // "NVIDIA H100 80GB HBM3"
};

// "# nThread 1 nGpus 1 minBytes 8 maxBytes ... step: 2(factor) warmup iters: 5 iters: 20 ..."
struct RunParameters {
  std::optional<int64_t> threads, gpusPerThread;
  std::optional<uint64_t> minBytes, maxBytes;
  std::optional<uint64_t> stepFactor, stepBytes;
  std::optional<int64_t> warmupIters, iters, aggIters, validation, graph;
};

struct RunFooter {
  std::optional<int64_t> outOfBounds;
  std::optional<bool> outOfBoundsOk;
  std::optional<double> avgBusBwGBs;
};

// Where `collective` came from: the "Collective test starting" line, the recorded command, or the rows.
enum class CollectiveSource { kUnknown, kPrinted, kCommand, kInferred };

struct PerfRun {
  int firstLine = 0, lastLine = 0;
  std::string collective;  // "all_reduce", "all_gather", ... (nccl-tests program name without "_perf")
  CollectiveSource collectiveSource = CollectiveSource::kUnknown;
  std::string testsVersion;       // "2.17.8" from "# nccl-tests version"
  std::string ncclVersion;        // "2.22.3" from a "NCCL version" line, else decoded from nccl-library=22902
  std::string ncclVersionDetail;  // full text as printed, e.g. "2.22.3+cuda12.2"
  RunParameters parameters;
  std::optional<uint64_t> reducedMaxBytes;  // "# Reducing maxBytes to N due to memory limitation"
  std::vector<DeviceLine> devices;
  // Variables known to have been set: NCCL's "X set by environment to Y" lines and the runner's
  // "# nccl-roce-env: X=Y" lines.
  std::map<std::string, std::string> environment;
  std::string command;               // the runner's "# nccl-roce-cmd: ..." line
  std::vector<std::string> columns;  // column names of the table header, as printed
  bool cpuTime = false;              // -C 1: "cputime" instead of "time"
  std::vector<PerfRow> rows;
  std::optional<RunFooter> footer;
  bool concluded = false;  // "# Collective test concluded" seen
  // Reasons the run should not be trusted as a measurement (several processes writing one file, ...).
  std::vector<std::string> rejections;
  // Things worth knowing that do not invalidate the rows (truncated table, repeated sizes, ...).
  std::vector<std::string> warnings;

  // Ranks: number of device lines when printed, else nThread x nGpus (a lower bound for MPI runs).
  std::optional<int> ranks() const;
  // Distinct host names among the device lines (what nNodes will be, unless NCCL_HOSTID says otherwise).
  std::optional<int> nodes() const;
  bool complete() const { return footer.has_value(); }
};

struct LineCounts {
  int total = 0;
  int rows = 0;     // data rows kept
  int header = 0;   // nccl-tests header, footer and decoration lines
  int ncclLog = 0;  // NCCL INFO/WARN/version lines
  int blank = 0;
  int unknown = 0;    // anything else; counted and skipped
  int malformed = 0;  // lines that looked like data rows but did not parse (truncated, garbled)
};

struct LineNote {
  int line = 0;
  std::string text;
};

struct PerfLog {
  std::string source;  // file name or "<stdin>"
  std::vector<PerfRun> runs;
  LineCounts lines;
  std::vector<LineNote> unknownExamples;  // the first few unknown lines, shortened
  std::vector<LineNote> problems;         // malformed rows and other file-level messages
  std::string textSha256;                 // of the file's text (readPerfLog), to find one log given twice
};

const char* collectiveSourceName(CollectiveSource source);

}  // namespace nccl_roce::sweep
