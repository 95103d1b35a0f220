// The columns of an nccl-tests result table, read from its header line rather than assumed, so every era
// parses: 2017 "bytes N type op | time algbw busbw res" (time in ms), 2019-2022 per-test preambles with an
// "error" column, 2022+ "size count type redop root | time algbw busbw #wrong", -C (cputime), -S (timestamp),
// -I (four per-iteration columns per half), and columns we do not know (kept as skipped fields).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::sweep {

enum class Column {
  kSize,
  kCount,
  kType,
  kRedop,
  kRoot,  // preamble
  kTime,
  kAlgBw,
  kBusBw,
  kWrong,
  kError,  // per half
  kIterMin,
  kIterMax,
  kIterP99,
  kIterCv,   // per half, -I
  kSkipped,  // a column we do not interpret (e.g. sidebw)
};

struct TableLayout {
  std::vector<Column> preamble;
  std::vector<Column> half;
  bool timestamp = false;  // two trailing fields: date and time
  double timeToUs = 1.0;   // 1000 for the 2017 layout, which printed milliseconds
  bool cpuTime = false;
  std::vector<std::string> names;  // as printed, for the JSON output

  // From the fields of a header line such as
  // "#       size         count      type   redop    root     time   algbw   busbw #wrong     time ...".
  // nullopt when the fields are not a result-table header.
  static std::optional<TableLayout> fromHeader(const std::vector<std::string_view>& fields);
  // The layout nccl-tests has printed since 2022-08, used for rows seen before any header.
  static TableLayout standard();

  size_t fullWidth() const { return preamble.size() + 2 * half.size() + (timestamp ? 2 : 0); }
  size_t inPlaceOnlyWidth() const { return preamble.size() + half.size() + (timestamp ? 2 : 0); }
};

// Parses one data row. On failure returns nullopt and says why in *error.
std::optional<PerfRow> parseRow(const TableLayout& layout, const std::vector<std::string_view>& fields,
                                std::string* error);

// True when the fields look like a result row: a byte count then an element count.
bool looksLikeRow(const std::vector<std::string_view>& fields);

}  // namespace nccl_roce::sweep
