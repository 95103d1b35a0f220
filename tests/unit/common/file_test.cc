#include "common/file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/temp_dir.h"

namespace nccl_roce {
namespace {

using testing::TempDir;

TEST(ReadFileBounded, ReturnsTheWholeContent) {
  TempDir dir;
  std::string path = dir.writeFile("state", "4: ACTIVE\n");
  auto content = readFileBounded(path, 64);
  ASSERT_TRUE(content.isOk()) << content.status().toString();
  EXPECT_EQ(*content, "4: ACTIVE\n");
}

TEST(ReadFileBounded, FailsInsteadOfTruncating) {
  TempDir dir;
  std::string path = dir.writeFile("huge", std::string(10000, 'x'));
  auto content = readFileBounded(path, 4096);
  ASSERT_FALSE(content.isOk());
  EXPECT_EQ(content.status().code(), StatusCode::kTooLarge);
}

TEST(ReadFileBounded, AFileExactlyAtTheBoundIsReadAndOneByteMoreIsNot) {
  TempDir dir;
  std::string exact = dir.writeFile("exact", std::string(10000, 'x'));
  std::string over = dir.writeFile("over", std::string(10001, 'x'));
  EXPECT_EQ(readFileBounded(exact, 10000)->size(), 10000u);
  EXPECT_EQ(readFileBounded(over, 10000).status().code(), StatusCode::kTooLarge);
}

// The buffer grows with the file, so a bound far above the content costs nothing, and files whose st_size is
// no guide are still read whole: /proc reports 0 and hands its content over in pieces.
TEST(ReadFileBounded, ReadsFilesLargerThanOnePieceWhateverTheirStatSays) {
  TempDir dir;
  std::string big(3 << 20, 'y');
  big.back() = '\n';
  EXPECT_EQ(*readFileBounded(dir.writeFile("big", big), size_t{256} << 20), big);
  StatusOr<std::string> maps = readFileBounded("/proc/self/maps", 16 << 20);
  ASSERT_TRUE(maps.isOk()) << maps.status().toString();
  EXPECT_GT(maps->size(), 4096u);  // a test binary maps more than one page's worth of lines
  EXPECT_EQ(maps->back(), '\n');
}

TEST(ReadFileBounded, ClassifiesMissingAndUnreadableFiles) {
  TempDir dir;
  EXPECT_EQ(readFileBounded(dir.join("absent"), 64).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(readFileBounded(dir.join("absent/deeper"), 64).status().code(), StatusCode::kNotFound);
  std::string locked = dir.writeFile("locked", "secret");
  ::chmod(locked.c_str(), 0);
  if (::geteuid() != 0) {  // root reads through mode 0
    EXPECT_EQ(readFileBounded(locked, 64).status().code(), StatusCode::kPermissionDenied);
  }
}

TEST(ReadFileBounded, RefusesFifosRatherThanBlocking) {
  TempDir dir;
  std::string fifo = dir.join("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto content = readFileBounded(fifo, 64);
  ASSERT_FALSE(content.isOk());
  EXPECT_EQ(content.status().code(), StatusCode::kInvalidArgument);
}

TEST(ReadFileBounded, SurvivesSymlinkLoops) {
  TempDir dir;
  ASSERT_EQ(::symlink(dir.join("b").c_str(), dir.join("a").c_str()), 0);
  ASSERT_EQ(::symlink(dir.join("a").c_str(), dir.join("b").c_str()), 0);
  auto content = readFileBounded(dir.join("a"), 64);
  ASSERT_FALSE(content.isOk());
  EXPECT_EQ(content.status().code(), StatusCode::kIoError);
  EXPECT_NE(content.status().message().find(dir.join("a")), std::string::npos);
}

TEST(ListDirectory, ListsNamesWithoutDots) {
  TempDir dir;
  dir.writeFile("gids/0", "x");
  dir.writeFile("gids/1", "x");
  auto names = listDirectory(dir.join("gids"), 16);
  ASSERT_TRUE(names.isOk());
  std::sort(names->begin(), names->end());
  EXPECT_EQ(*names, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(listDirectory(dir.join("gids"), 1).status().code(), StatusCode::kTooLarge);
  EXPECT_EQ(listDirectory(dir.join("none"), 1).status().code(), StatusCode::kNotFound);
}

TEST(WriteFileAtomically, ReplacesTheFileWhole) {
  TempDir dir;
  std::string path = dir.join("stats.json");
  ASSERT_TRUE(writeFileAtomically(path, "{\"a\":1}").isOk());
  ASSERT_TRUE(writeFileAtomically(path, "{}").isOk());
  EXPECT_EQ(*readFileBounded(path, 64), "{}");
  auto names = listDirectory(dir.path(), 16);
  EXPECT_EQ(names->size(), 1u) << "no temporary file left behind";
  Status missing = writeFileAtomically(dir.join("missing/dir/file"), "x");
  EXPECT_FALSE(missing.isOk());
  EXPECT_NE(missing.toString().find(dir.join("missing/dir/file") + ":"), std::string::npos)
      << "names the file asked for: " << missing.toString();
  EXPECT_EQ(missing.toString().find(".tmp."), std::string::npos) << "not our temporary name: " << missing.toString();
}

}  // namespace
}  // namespace nccl_roce
