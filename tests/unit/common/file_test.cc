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
  EXPECT_FALSE(writeFileAtomically(dir.join("missing/dir/file"), "x").isOk());
}

}  // namespace
}  // namespace nccl_roce
