// A scratch directory removed (recursively) when the test ends.
#pragma once

#include <string>

namespace nccl_roce::testing {

class TempDir {
 public:
  TempDir();
  // In `base` where that is a directory this process can write (/dev/shm: a memory file system, for tests that make
  // many files), else where TempDir() makes it.
  explicit TempDir(const char* base);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + relative
  std::string join(const std::string& relative) const { return path_ + "/" + relative; }
  // Writes `content` to path()/relative, creating parent directories.
  std::string writeFile(const std::string& relative, const std::string& content) const;

 private:
  std::string path_;
};

// mkdir -p
void makeDirectories(const std::string& path);

}  // namespace nccl_roce::testing
