// Walking and reading a directory others can write (common/directory_walk.h), as `ab`, `sweep` and `proof` do:
// regular files found and read beneath the directory named; links, FIFOs and devices named, never opened.
#include "common/directory_walk.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "common/file.h"
#include "common/strings.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce {
namespace {

using testing::TempDir;

// A directory others can write, as the readers (`ab`, `sweep`, `proof`) meet it: regular files are found; a link, a
// FIFO and a device planted under names a reader wants are named with the reason and never opened.
TEST(WalkDirectory, FindsRegularFilesAndNamesEverythingElseItWouldHaveTaken) {
  TempDir dir, outside;
  std::string secret = outside.writeFile("secret.json", "{}");
  dir.writeFile("stats.1.json", "{}");
  dir.writeFile("pod-b/stats.2.json", "{}");
  dir.writeFile("notes.txt", "not wanted");
  ASSERT_EQ(::mkfifo(dir.join("stats.3.json").c_str(), 0644), 0);
  ASSERT_EQ(::symlink("/dev/zero", dir.join("stats.4.json").c_str()), 0);
  ASSERT_EQ(::symlink(secret.c_str(), dir.join("stats.5.json").c_str()), 0);
  ASSERT_EQ(::symlink(outside.path().c_str(), dir.join("pod-c").c_str()), 0);  // a directory elsewhere
  ASSERT_EQ(::symlink(secret.c_str(), dir.join("unwanted-link").c_str()), 0);
  DirectoryWalk walk;
  walk.wanted = [](const std::string& name) { return endsWith(name, ".json"); };
  StatusOr<WalkResult> walked = walkDirectory(dir.path(), walk);
  ASSERT_TRUE(walked.isOk()) << walked.status().toString();
  std::vector<std::string> found, skipped;
  for (const FoundFile& f : walked->files) found.push_back(f.path());
  for (const SkippedEntry& e : walked->skipped) skipped.push_back(e.path + ": " + e.why);
  EXPECT_EQ(found, (std::vector<std::string>{dir.join("pod-b/stats.2.json"), dir.join("stats.1.json")}));
  const std::string link = ": a symbolic link, not followed (name its target to read it)";
  EXPECT_EQ(skipped,
            (std::vector<std::string>{dir.join("pod-c") + link, dir.join("stats.3.json: a FIFO, not a regular file"),
                                      dir.join("stats.4.json") + link, dir.join("stats.5.json") + link}));
  EXPECT_EQ(walked->directories, std::vector<std::string>{"pod-b"});
}

TEST(WalkDirectory, StopsAtItsDepthAndItsCount) {
  TempDir dir;
  dir.writeFile("a/b/c/deep.log", "");
  dir.writeFile("a/shallow.log", "");
  DirectoryWalk walk;
  walk.maxDepth = 2;
  StatusOr<WalkResult> walked = walkDirectory(dir.path(), walk);
  ASSERT_TRUE(walked.isOk());
  ASSERT_EQ(walked->files.size(), 1u);
  EXPECT_EQ(walked->files[0].relative, "a/shallow.log");
  walk.maxEntries = 2;
  EXPECT_EQ(walkDirectory(dir.path(), walk).status().code(), StatusCode::kTooLarge);
  EXPECT_EQ(walkDirectory(dir.join("missing"), walk).status().code(), StatusCode::kNotFound);
}

// A glob's match is walked from beneath the glob's directory: a link anywhere below it is not followed.
TEST(WalkDirectory, AStartBeneathTheRootFollowsNoLink) {
  TempDir dir, outside;
  outside.writeFile("stats.9.json", "{}");
  dir.writeFile("pod-a/stats.1.json", "{}");
  ASSERT_EQ(::symlink(outside.path().c_str(), dir.join("pod-b").c_str()), 0);
  StatusOr<WalkResult> one = walkDirectory(dir.path(), {}, "pod-a/stats.1.json");
  ASSERT_TRUE(one.isOk());
  ASSERT_EQ(one->files.size(), 1u);
  EXPECT_EQ(one->files[0].path(), dir.join("pod-a/stats.1.json"));
  StatusOr<WalkResult> through = walkDirectory(dir.path(), {}, "pod-b/stats.9.json");
  ASSERT_FALSE(through.isOk());
  EXPECT_EQ(through.status().message(),
            dir.join("pod-b") + ": a symbolic link, not followed (name its target to read it)");
  StatusOr<WalkResult> link = walkDirectory(dir.path(), {}, "pod-b");
  ASSERT_TRUE(link.isOk());
  EXPECT_TRUE(link->files.empty());
  ASSERT_EQ(link->skipped.size(), 1u);
  EXPECT_TRUE(link->skipped[0].link);
}

// Read beneath the directory it was found in: a directory swapped for a link after the walk is not followed, a
// FIFO swapped in is refused without waiting on it; a file the user named is read as named, links followed.
TEST(ReadFoundFile, FollowsNoLinkBeneathItsDirectory) {
  TempDir dir, outside;
  std::string secret = outside.writeFile("sub/stats.1.json", "secret");
  dir.writeFile("sub/stats.1.json", "ours");
  FoundFile found{dir.path(), "sub/stats.1.json"};
  EXPECT_EQ(*readFoundFile(found, 64), "ours");
  ASSERT_EQ(std::system(("rm -r " + dir.join("sub")).c_str()), 0);
  ASSERT_EQ(::symlink(outside.join("sub").c_str(), dir.join("sub").c_str()), 0);
  EXPECT_EQ(readFoundFile(found, 64).status().message(),
            dir.join("sub") + ": a symbolic link, not followed (name its target to read it)");
  ASSERT_EQ(::unlink(dir.join("sub").c_str()), 0);
  testing::makeDirectories(dir.join("sub"));
  ASSERT_EQ(::symlink(secret.c_str(), dir.join("sub/stats.1.json").c_str()), 0);
  EXPECT_EQ(readFoundFile(found, 64).status().message(),
            dir.join("sub/stats.1.json") + ": a symbolic link, not followed (name its target to read it)");
  EXPECT_EQ(*readFoundFile({"", dir.join("sub/stats.1.json")}, 64), "secret") << "named by the user: followed";
  ASSERT_EQ(::unlink(dir.join("sub/stats.1.json").c_str()), 0);
  ASSERT_EQ(::mkfifo(dir.join("sub/stats.1.json").c_str(), 0644), 0);
  EXPECT_EQ(readFoundFile(found, 64).status().message(), dir.join("sub/stats.1.json") + ": a FIFO, not a regular file");
}

}  // namespace
}  // namespace nccl_roce
