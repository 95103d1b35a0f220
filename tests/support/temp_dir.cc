#include "tests/support/temp_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace nccl_roce::testing {

TempDir::TempDir() : TempDir(nullptr) {}

TempDir::TempDir(const char* base) {
  if (base == nullptr || ::access(base, W_OK | X_OK) != 0) base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/nccl-roce-test.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  // Tests may chmod files to provoke EACCES; make everything removable first.
  for (auto it = std::filesystem::recursive_directory_iterator(
           path_, std::filesystem::directory_options::skip_permission_denied, ignored);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
    if (!it->is_symlink(ignored)) {
      std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                   ignored);
    }
  }
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::writeFile(const std::string& relative, const std::string& content) const {
  std::string full = join(relative);
  makeDirectories(std::filesystem::path(full).parent_path().string());
  std::ofstream out(full, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + full);
  out << content;
  return full;
}

void makeDirectories(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) throw std::runtime_error("mkdir -p " + path + ": " + error.message());
}

}  // namespace nccl_roce::testing
