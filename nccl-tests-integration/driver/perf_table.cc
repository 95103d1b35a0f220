#include "nccl-tests-integration/driver/perf_table.h"

#include <cinttypes>
#include <cstdio>

#include "common/strings.h"

namespace nccl_roce::driver {

namespace {

constexpr const char* kProgram = "all_reduce_perf";  // the nccl-tests program whose table this is

std::string exponent(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*e", decimals, value);
  return buffer;
}

std::string half(const MeasuredHalf& h, uint64_t bytes, int nranks) {
  char buffer[96];
  std::string wrong = h.wrong < 0 ? "N/A" : std::to_string(h.wrong);
  std::snprintf(buffer, sizeof buffer, "  %7s  %6s  %6s  %6s", fitFloat(h.timeUs, 7).c_str(),
                fitFloat(algBandwidthGBs(bytes, h.timeUs), 6).c_str(),
                fitFloat(busBandwidthGBs(bytes, h.timeUs, nranks), 6).c_str(), wrong.c_str());
  return buffer;
}

}  // namespace

std::string fitFloat(double value, int width) {
  for (int decimals : {2, 1, 0}) {
    std::string text = formatFixed(value, decimals);
    if (static_cast<int>(text.size()) <= width) return text;
  }
  return exponent(value, width >= 7 ? 1 : 0);
}

double algBandwidthGBs(uint64_t bytes, double timeUs) {
  return timeUs > 0 ? static_cast<double>(bytes) / timeUs / 1e3 : 0.0;
}

double busBandwidthGBs(uint64_t bytes, double timeUs, int nranks) {
  return nranks > 0 ? algBandwidthGBs(bytes, timeUs) * 2.0 * (nranks - 1) / nranks : 0.0;
}

std::string tableHeader(const DriverOptions& o, const std::string& versionLine,
                        const std::vector<RankDevice>& devices) {
  std::string out = std::string("# Collective test starting: ") + kProgram + "\n";
  if (!versionLine.empty()) out += versionLine + "\n";
  char line[512];
  std::string step =
      o.stepIsFactor ? std::to_string(o.stepFactor) + "(factor)" : std::to_string(o.stepBytes) + "(bytes)";
  std::snprintf(line, sizeof line,
                "# nThread 1 nGpus 1 minBytes %" PRIu64 " maxBytes %" PRIu64
                " step: %s warmup iters: %d iters: %d agg iters: 1 validation: %d graph: %d\n",
                o.minBytes, o.maxBytes, step.c_str(), o.warmupIters, o.iters, o.check ? 1 : 0, o.graphLaunches);
  out += line;
  out += "#\n# Using devices\n";
  for (const RankDevice& d : devices) {
    std::snprintf(line, sizeof line, "#  Rank %2d Group  0 Pid %6" PRId64 " on %10s device %2d [%s] %s\n", d.rank,
                  d.pid, d.host.c_str(), d.device, d.busId.c_str(), d.name.c_str());
    out += line;
  }
  out += "#\n";
  out += "#                                                              out-of-place                       in-place\n";
  out +=
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
      "busbw  #wrong\n";
  out +=
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  "
      "(GB/s)\n";
  return out;
}

std::string tableRow(const MeasuredSize& row, DataType type, int nranks) {
  char preamble[128];
  uint64_t count = row.bytes / static_cast<uint64_t>(dataTypeSize(type));
  std::snprintf(preamble, sizeof preamble, "%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6s", row.bytes, count,
                dataTypeName(type), "sum", "-1");
  return preamble + half(row.outOfPlace, row.bytes, nranks) + half(row.inPlace, row.bytes, nranks) + "\n";
}

std::string tableFooter(const std::vector<MeasuredSize>& rows, int nranks) {
  int64_t wrong = 0;
  double busSum = 0;
  int halves = 0;
  for (const MeasuredSize& row : rows) {
    for (const MeasuredHalf* h : {&row.outOfPlace, &row.inPlace}) {
      if (h->wrong > 0) wrong += h->wrong;
      busSum += busBandwidthGBs(row.bytes, h->timeUs, nranks);
      ++halves;
    }
  }
  char line[128];
  std::string out;
  std::snprintf(line, sizeof line, "# %-20s : %" PRId64 " %s\n", "Out of bounds values", wrong,
                wrong == 0 ? "OK" : "FAILED");
  out += line;
  std::snprintf(line, sizeof line, "# %-20s : %g \n", "Avg bus bandwidth", halves ? busSum / halves : 0.0);
  out += line;
  out += std::string("#\n# Collective test concluded: ") + kProgram + "\n#\n";
  return out;
}

}  // namespace nccl_roce::driver
