#include "common/file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

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
  EXPECT_EQ(missing.toString().find(".tmp"), std::string::npos) << "not our temporary name: " << missing.toString();
}

// Both ways of making the temporary file: O_TMPFILE where the file system has it, a named one elsewhere.
using Writer = Status (*)(int dirFd, const std::string& name, const std::string& content, const std::string& shown,
                          mode_t mode);
class SecureWrite : public ::testing::TestWithParam<Writer> {
 protected:
  Status write(const std::string& name, const std::string& content, mode_t mode = 0644) {
    UniqueFd fd(::open(dir_.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    return GetParam()(fd.get(), name, content, dir_.join(name), mode);
  }
  std::vector<std::string> names() {
    auto listed = listDirectory(dir_.path(), 64);
    std::vector<std::string> out = listed.isOk() ? *listed : std::vector<std::string>{};
    std::sort(out.begin(), out.end());
    return out;
  }
  TempDir dir_, outside_;
};

// A link planted at the final name (to a file of the writer's, or to /dev/null) is replaced by the file, and
// what it pointed at is left as it was.
TEST_P(SecureWrite, ReplacesALinkAtTheFinalNameInsteadOfWritingThroughIt) {
  std::string victim = outside_.writeFile("victim", "precious\n");
  ASSERT_EQ(::symlink(victim.c_str(), dir_.join("stats.json").c_str()), 0);
  ASSERT_TRUE(write("stats.json", "{}").isOk());
  struct stat st {};
  ASSERT_EQ(::lstat(dir_.join("stats.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode)) << "the link is replaced by a regular file";
  EXPECT_EQ(*readFileBounded(dir_.join("stats.json"), 64), "{}");
  EXPECT_EQ(*readFileBounded(victim, 64), "precious\n");
  EXPECT_EQ(names(), std::vector<std::string>{"stats.json"});
}

TEST_P(SecureWrite, ReplacesAFifoAtTheFinalNameWithoutOpeningIt) {
  ASSERT_EQ(::mkfifo(dir_.join("m.prom").c_str(), 0644), 0);
  ASSERT_TRUE(write("m.prom", "x 1\n").isOk());  // opening the FIFO to write would block forever
  EXPECT_EQ(*readFileBounded(dir_.join("m.prom"), 64), "x 1\n");
}

// A directory cannot be replaced, nor should it be: the write fails, naming the file and why, and leaves nothing.
TEST_P(SecureWrite, FailsOnADirectoryAtTheFinalNameAndLeavesNothingBehind) {
  dir_.writeFile("m.prom/theirs", "keep");
  Status written = write("m.prom", "x 1\n");
  ASSERT_FALSE(written.isOk());
  EXPECT_EQ(written.message(), dir_.join("m.prom") + ": Is a directory");
  EXPECT_EQ(names(), std::vector<std::string>{"m.prom"});
  EXPECT_EQ(*readFileBounded(dir_.join("m.prom/theirs"), 64), "keep");
}

// The file's mode is what was asked, whatever the umask: node-exporter reads it as another user.
TEST_P(SecureWrite, GivesTheFileExactlyTheModeAskedWhateverTheUmask) {
  mode_t before = ::umask(077);
  Status written = write("m.prom", "x 1\n");
  Status secret = write("secret", "s", 0600);
  ::umask(before);
  ASSERT_TRUE(written.isOk() && secret.isOk());
  struct stat st {};
  ASSERT_EQ(::stat(dir_.join("m.prom").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  ASSERT_EQ(::stat(dir_.join("secret").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_P(SecureWrite, LeavesNoTemporaryFileWhenTheRenameFails) {
  dir_.writeFile("busy/x", "");
  EXPECT_FALSE(write("busy", "content").isOk());
  EXPECT_FALSE(write("busy", "content").isOk());
  EXPECT_EQ(names(), std::vector<std::string>{"busy"});
}

INSTANTIATE_TEST_SUITE_P(AnonymousOrNamedTemporary, SecureWrite,
                         ::testing::Values(&writeFileAt, &detail::writeFileAtWithNamedTemporary));

// Temporary names cannot be predicted: links planted at every name an earlier version used, and at a thousand
// guesses of the new form, are never written through, and each write uses a name of its own.
TEST(WriteFileAtomically, TemporaryNamesCannotBePredicted) {
  TempDir dir, outside;
  std::string victim = outside.writeFile("victim", "precious");
  std::string final = dir.join("stats.42.json");
  ASSERT_EQ(::symlink(victim.c_str(), (final + ".tmp." + std::to_string(::getpid())).c_str()), 0);
  for (int i = 0; i < 1000; ++i) {
    char guess[64];
    std::snprintf(guess, sizeof(guess), ".stats.42.json.tmp-%016x", i);
    ASSERT_EQ(::symlink(victim.c_str(), dir.join(guess).c_str()), 0);
  }
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(writeFileAtomically(final, std::to_string(i)).isOk());
  EXPECT_EQ(*readFileBounded(final, 64), "19");
  EXPECT_EQ(*readFileBounded(victim, 64), "precious");
  EXPECT_EQ(listDirectory(dir.path(), 2000)->size(), 1002u) << "the planted links stay, nothing else is left";
}

TEST(WriteFileAtomically, NamesItsTemporaryFilesAsTheSweepRecognisesThem) {
  EXPECT_TRUE(isTemporaryFileOf(".nccl-roce.pod.1.2.prom.tmp-0123456789abcdef", "nccl-roce."));
  EXPECT_FALSE(isTemporaryFileOf(".nccl-roce.pod.1.2.prom.tmp-0123456789abcdeg", "nccl-roce."));
  EXPECT_FALSE(isTemporaryFileOf("nccl-roce.pod.1.2.prom.tmp-0123456789abcdef", "nccl-roce."));
  EXPECT_FALSE(isTemporaryFileOf(".other.prom.tmp-0123456789abcdef", "nccl-roce."));
  EXPECT_FALSE(isTemporaryFileOf(".nccl-roce.tmp-0123", "nccl-roce."));
}

TEST(OpenDirectoryForWriting, MakesEveryMissingDirectoryWithExactlyTheModeAsked) {
  TempDir dir;
  mode_t before = ::umask(077);
  StatusOr<UniqueFd> made = openDirectoryForWriting(dir.join("a/b/c"), /*create=*/true);
  ::umask(before);
  ASSERT_TRUE(made.isOk()) << made.status().toString();
  ASSERT_TRUE(writeFileAt(made->get(), "f", "x", dir.join("a/b/c/f")).isOk());
  EXPECT_EQ(*readFileBounded(dir.join("a/b/c/f"), 8), "x");
  for (const char* d : {"a", "a/b", "a/b/c"}) {
    struct stat st {};
    ASSERT_EQ(::stat(dir.join(d).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0755u) << d;
  }
  EXPECT_EQ(openDirectoryForWriting(dir.join("missing"), /*create=*/false).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(openDirectoryForWriting(dir.path() + "/./a//b/", /*create=*/false).isOk());
}

// Above the last component, links are the operator's own (/var/lib may be one); the last is where another user
// of a shared parent could plant one, and so is a directory about to be made.
TEST(OpenDirectoryForWriting, FollowsLinksAboveTheLastComponentOnly) {
  TempDir dir, elsewhere;
  testing::makeDirectories(elsewhere.join("real/textfile"));
  ASSERT_EQ(::symlink(elsewhere.join("real").c_str(), dir.join("lib").c_str()), 0);
  ASSERT_EQ(::symlink(elsewhere.join("real/textfile").c_str(), dir.join("textfile").c_str()), 0);
  ASSERT_EQ(::symlink(elsewhere.join("nowhere").c_str(), dir.join("dangling").c_str()), 0);
  EXPECT_TRUE(openDirectoryForWriting(dir.join("lib/textfile"), /*create=*/false).isOk());
  for (const char* planted : {"textfile", "dangling", "dangling/pod"}) {
    StatusOr<UniqueFd> opened = openDirectoryForWriting(dir.join(planted), /*create=*/true);
    ASSERT_FALSE(opened.isOk()) << planted;
    std::string link = std::string(planted).substr(0, std::string(planted).find('/'));
    EXPECT_EQ(opened.status().message(),
              dir.join(link) + ": a symbolic link, not followed (docs/security.md); name the directory it points to");
  }
  EXPECT_NE(::access(elsewhere.join("nowhere").c_str(), F_OK), 0) << "nothing made through the dangling link";
  StatusOr<UniqueFd> file = openDirectoryForWriting(dir.writeFile("plain", "") + "/sub", /*create=*/true);
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound) << file.status().toString();
}

TEST(ReadFileBounded, RefusesAFileThatSaysItIsLargerThanTheBoundWithoutReadingIt) {
  TempDir dir;
  std::string sparse = dir.join("sparse");
  UniqueFd fd(::open(sparse.c_str(), O_WRONLY | O_CREAT, 0644));
  ASSERT_EQ(::ftruncate(fd.get(), off_t{1} << 40), 0);  // a terabyte of nothing
  EXPECT_EQ(readFileBounded(sparse, size_t{1} << 30).status().code(), StatusCode::kTooLarge);
}

}  // namespace
}  // namespace nccl_roce
