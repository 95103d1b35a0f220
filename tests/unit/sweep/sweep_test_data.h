// Where the published nccl-tests logs live in the source tree, and a row matcher for hand-written
// expectations.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "common/file.h"
#include "nccl-tests-integration/sweep/perf_log.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"
#include "tests/support/run_command.h"

namespace nccl_roce::sweep::testing {

inline std::string publishedLogPath(const std::string& name) {
  return nccl_roce::testing::sourcePath("tests/data/nccl-tests/" + name);
}

inline std::string readPublishedLog(const std::string& name) {
  StatusOr<std::string> text = readFileBounded(publishedLogPath(name), 1 << 20);
  EXPECT_TRUE(text.isOk()) << text.status().toString();
  return text.isOk() ? *text : std::string();
}

inline PerfLog parsePublishedLog(const std::string& name) {
  return parsePerfLog(readPublishedLog(name), name);
}

// One row as printed: time/algbw/busbw/#wrong for out-of-place then in-place.
struct PrintedRow {
  int line;
  uint64_t size, count;
  const char* type;
  const char* redop;
  int64_t root;
  double oopTime, oopAlgBw, oopBusBw;
  int64_t oopWrong;
  double ipTime, ipAlgBw, ipBusBw;
  int64_t ipWrong;
};

inline void expectRow(const PerfRun& run, const PrintedRow& want) {
  const PerfRow* found = nullptr;
  for (const PerfRow& row : run.rows) {
    if (row.line == want.line) found = &row;
  }
  ASSERT_NE(found, nullptr) << "no row from line " << want.line;
  const PerfRow& row = *found;
  SCOPED_TRACE("line " + std::to_string(want.line));
  EXPECT_EQ(row.size, want.size);
  EXPECT_EQ(row.count, want.count);
  EXPECT_EQ(row.type, want.type);
  EXPECT_EQ(row.redop, want.redop);
  EXPECT_EQ(row.root, std::optional<int64_t>(want.root));
  ASSERT_TRUE(row.outOfPlace && row.inPlace);
  EXPECT_DOUBLE_EQ(*row.outOfPlace->timeUs, want.oopTime);
  EXPECT_DOUBLE_EQ(*row.outOfPlace->algBwGBs, want.oopAlgBw);
  EXPECT_DOUBLE_EQ(*row.outOfPlace->busBwGBs, want.oopBusBw);
  EXPECT_EQ(row.outOfPlace->wrong, std::optional<int64_t>(want.oopWrong));
  EXPECT_DOUBLE_EQ(*row.inPlace->timeUs, want.ipTime);
  EXPECT_DOUBLE_EQ(*row.inPlace->algBwGBs, want.ipAlgBw);
  EXPECT_DOUBLE_EQ(*row.inPlace->busBwGBs, want.ipBusBw);
  EXPECT_EQ(row.inPlace->wrong, std::optional<int64_t>(want.ipWrong));
}

}  // namespace nccl_roce::sweep::testing
