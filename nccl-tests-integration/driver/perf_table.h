// The driver's output in nccl-tests' layout (2022+ columns, 2025 bus-id and test start/end lines), so that
// `nccl-roce sweep parse|compare|fit` and any other nccl-tests tooling read it unchanged. Pure text
// formatting: no CUDA, tested on machines without GPUs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nccl-tests-integration/driver/driver_options.h"

namespace nccl_roce::driver {

// What each rank reports about itself for the "# Using devices" block.
struct RankDevice {
  int rank = 0;
  int64_t pid = 0;
  std::string host;  // NCCL_HOSTID when set (the host NCCL groups ranks by), else the short host name
  int device = 0;
  std::string busId;  // "0000:19:00" (domain:bus:device, as nccl-tests prints it)
  std::string name;   // "NVIDIA H100 80GB HBM3"
};

struct MeasuredHalf {
  double timeUs = 0;  // average per iteration, averaged over ranks
  int64_t wrong = 0;  // wrong elements summed over ranks; -1 when not checked (printed N/A)
};

struct MeasuredSize {
  uint64_t bytes = 0;
  MeasuredHalf outOfPlace, inPlace;
};

// nccl-tests' getFloatStr: the first of %.2f, %.1f, %.0f that fits `width`, else exponent notation.
std::string fitFloat(double value, int width);

// all_reduce: algbw = bytes / time (GB/s, 1 GB = 1e9 B), busbw = algbw * 2 (n - 1) / n.
double algBandwidthGBs(uint64_t bytes, double timeUs);
double busBandwidthGBs(uint64_t bytes, double timeUs, int nranks);

// From "# Collective test starting" through the two column-header lines. `versionLine` is printed as is,
// after the start line, in the form NCCL itself prints ("NCCL version 2.28.9 ...").
std::string tableHeader(const DriverOptions& options, const std::string& versionLine,
                        const std::vector<RankDevice>& devices);
// One data row, newline-terminated.
std::string tableRow(const MeasuredSize& row, DataType type, int nranks);
// Out-of-bounds count, average bus bandwidth over every printed half, and the end line.
std::string tableFooter(const std::vector<MeasuredSize>& rows, int nranks);

}  // namespace nccl_roce::driver
