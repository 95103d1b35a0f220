// How the driver's ranks meet and check their results, without a GPU: the unique-id file, the rank launcher
// (NCCL_HOSTID per rank, failing fast), and the exact validation pattern.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <limits>
#include <thread>
#include <vector>

#include "common/file.h"
#include "nccl-tests-integration/driver/check_pattern.h"
#include "nccl-tests-integration/driver/rank_launcher.h"
#include "nccl-tests-integration/driver/rendezvous.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::driver {
namespace {

using nccl_roce::testing::TempDir;
using ::testing::HasSubstr;

constexpr size_t kIdBytes = 128;  // sizeof(ncclUniqueId)

std::string everyByteValue() {
  std::string id(kIdBytes, '\0');
  for (size_t i = 0; i < kIdBytes; ++i) id[i] = static_cast<char>(i * 2 + 1);  // 0x01 .. 0xff, zeros excluded
  id[5] = '\0';
  return id;
}

TEST(Rendezvous, RankZeroPublishesAndTheOthersReadTheSameBytes) {
  TempDir dir;
  std::string path = dir.join("rep-1.uid");
  std::string id = everyByteValue();
  ASSERT_TRUE(publishUniqueId(path, id).isOk());
  char got[kIdBytes];
  Status s = awaitUniqueId(path, got, kIdBytes, 1000);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(std::string(got, kIdBytes), id);
}

TEST(Rendezvous, WaitsForRankZeroToStartLate) {
  TempDir dir;
  std::string path = dir.join("late.uid");
  std::string id = everyByteValue();
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(publishUniqueId(path, id).isOk());
  });
  char got[kIdBytes];
  Status s = awaitUniqueId(path, got, kIdBytes, 10000, 5);
  late.join();
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(std::string(got, kIdBytes), id);
}

TEST(Rendezvous, GivesUpWithAClearMessageWhenRankZeroNeverComes) {
  TempDir dir;
  char got[kIdBytes];
  Status s = awaitUniqueId(dir.join("never.uid"), got, kIdBytes, 30, 5);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("rank 0 did not write"));
}

TEST(Rendezvous, AFileThatIsNotAnIdIsNeverFedToNccl) {
  TempDir dir;
  char got[kIdBytes];
  Status s = awaitUniqueId(dir.writeFile("foreign.uid", "hello world\n"), got, kIdBytes, 1000);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  s = awaitUniqueId(dir.writeFile("short.uid", "00ff\n"), got, kIdBytes, 1000);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_THAT(s.message(), HasSubstr("holds 2 bytes, expected 128"));
}

TEST(Rendezvous, HexRoundTrips) {
  EXPECT_EQ(hexEncode(std::string("\x00\x7f\xff", 3)), "007fff");
  StatusOr<std::string> back = hexDecode("007FfF");
  ASSERT_TRUE(back.isOk());
  EXPECT_EQ(*back, std::string("\x00\x7f\xff", 3));
  EXPECT_FALSE(hexDecode("0g").isOk());
  EXPECT_FALSE(hexDecode("abc").isOk());
}

TEST(RankLauncher, EveryRankRunsWithItsOwnHostIdWhenAsked) {
  TempDir dir;
  LaunchResult result = launchRanks(3, true, [&](int rank) {
    const char* id = getenv("NCCL_HOSTID");
    return writeFileAtomically(dir.join("rank" + std::to_string(rank)), id ? id : "(unset)").isOk() ? 0 : 9;
  });
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_EQ(result.failedRank, -1);
  std::string host = shortHostName();
  for (int rank = 0; rank < 3; ++rank) {
    StatusOr<std::string> seen = readFileBounded(dir.join("rank" + std::to_string(rank)), 4096);
    ASSERT_TRUE(seen.isOk());
    EXPECT_EQ(*seen, host + "-rank" + std::to_string(rank));  // the names run-sweep.sh --distinct-hostid uses
  }
}

TEST(RankLauncher, WithoutDistinctHostIdsTheEnvironmentIsLeftAlone) {
  TempDir dir;
  unsetenv("NCCL_HOSTID");
  LaunchResult result = launchRanks(2, false, [&](int rank) { return getenv("NCCL_HOSTID") ? 1 : 0; });
  EXPECT_EQ(result.exitCode, 0);
}

TEST(RankLauncher, OneFailingRankStopsTheOthersInsteadOfLeavingThemWaiting) {
  auto start = std::chrono::steady_clock::now();
  LaunchResult result = launchRanks(3, false, [](int rank) {
    if (rank == 1) return 5;
    sleep(60);  // a rank stuck in NCCL's bootstrap waiting for rank 1
    return 0;
  });
  EXPECT_EQ(result.exitCode, 5);
  EXPECT_EQ(result.failedRank, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(CheckPattern, SumsAreExactAndWorkedOutByHandForTwoRanks) {
  // inputValue(i, r) = (7 i + 3 r) mod 16.
  ExpectedSums two(2);
  EXPECT_EQ(two.at(0), 0.0 + 3.0);
  EXPECT_EQ(two.at(1), 7.0 + 10.0);
  EXPECT_EQ(two.at(5), 3.0 + 6.0);   // 35 mod 16, 38 mod 16
  EXPECT_EQ(two.at(21), two.at(5));  // period 16
  // Over 16 ranks every residue appears once at every index: 0 + 1 + ... + 15.
  ExpectedSums sixteen(16);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(sixteen.at(i), 120.0);
  EXPECT_EQ(ExpectedSums(4096).at(3), 256 * 120.0);  // still exact in float
}

TEST(CheckPattern, CountsExactlyTheWrongElements) {
  const int nranks = 3;
  std::vector<float> result(1000);
  std::vector<float> rank(result.size());
  for (int r = 0; r < nranks; ++r) {
    fillInput(&rank, r);
    for (size_t i = 0; i < result.size(); ++i) result[i] += rank[i];
  }
  EXPECT_EQ(countWrong(result.data(), result.size(), nranks), 0);
  // Checked against two ranks, only the indices where rank 2 added 0 (i = 6 mod 16: 63 of 1000) look right.
  EXPECT_EQ(countWrong(result.data(), result.size(), nranks - 1), 1000 - 63);
  result[17] += 1.0f;
  result[999] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(countWrong(result.data(), result.size(), nranks), 2);
}

}  // namespace
}  // namespace nccl_roce::driver
