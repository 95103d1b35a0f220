#include "common/directory_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "common/file.h"
#include "common/strings.h"

namespace nccl_roce {

namespace {

const char* const kLinkNotFollowed = "a symbolic link, not followed (name its target to read it)";

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

// Opens the directories of `relative` beneath `dirFd`, none through a link; the last component is left to the
// caller, as `last`.
StatusOr<UniqueFd> openParentsBeneath(int dirFd, const std::string& shownRoot, const std::string& relative,
                                      std::string* last) {
  std::vector<std::string_view> parts = split(relative, '/');
  UniqueFd at(::openat(dirFd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!at) return statusFromErrno(errno, shownRoot);
  std::string shown = shownRoot;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i].empty() || parts[i] == ".") continue;
    std::string part(parts[i]);
    shown += "/" + part;
    UniqueFd next(::openat(at.get(), part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!next || ::fstat(next.get(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      int err = next ? ENOTDIR : errno;
      if (::fstatat(at.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        return Status(StatusCode::kInvalidArgument, shown + ": " + kLinkNotFollowed);
      }
      return statusFromErrno(err, shown);
    }
    at = std::move(next);
  }
  *last = parts.empty() ? std::string(".") : std::string(parts.back());
  return at;
}

class Walker {
 public:
  Walker(const std::string& root, const DirectoryWalk& walk) : root_(root), walk_(walk) {}

  Status walkInto(int dirFd, const std::string& relative, int depth) {
    const std::string shown = relative.empty() ? root_ : root_ + "/" + relative;
    UniqueFd readable(::openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    std::unique_ptr<DIR, DirCloser> dir(readable ? ::fdopendir(readable.get()) : nullptr);
    if (!dir) return statusFromErrno(errno, shown);
    readable.release();  // the stream owns it now
    std::vector<std::string> names;
    while (true) {
      errno = 0;
      // NOLINTNEXTLINE(concurrency-mt-unsafe): glibc's readdir is safe on a stream no other thread reads, as this one
      struct dirent* entry = ::readdir(dir.get());
      if (entry == nullptr) {
        if (errno != 0) return statusFromErrno(errno, shown);
        break;
      }
      if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
      if (++entries_ > walk_.maxEntries) {
        return Status(StatusCode::kTooLarge, root_ + ": more than " + std::to_string(walk_.maxEntries) + " entries");
      }
      if (walk_.skipHidden && entry->d_name[0] == '.') continue;
      names.emplace_back(entry->d_name);
    }
    if (walk_.order) {
      std::sort(names.begin(), names.end(), walk_.order);
    } else {
      std::sort(names.begin(), names.end());
    }
    const int fd = ::dirfd(dir.get());
    for (const std::string& name : names) {
      Status s = take(fd, relative.empty() ? name : relative + "/" + name, name, depth);
      if (!s.isOk()) return s;
    }
    return Status::ok();
  }

  // One entry, `name` in the directory open at `dirFd`, at `relative` beneath the root.
  Status take(int dirFd, const std::string& relative, const std::string& name, int depth, bool named = false) {
    struct stat st {};
    if (::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (named) return statusFromErrno(errno, root_ + "/" + relative);
      return Status::ok();  // gone since it was listed
    }
    const bool wanted = named || !walk_.wanted || walk_.wanted(name);
    if (S_ISDIR(st.st_mode)) {
      if (depth >= walk_.maxDepth && !named) return Status::ok();
      UniqueFd sub(::openat(dirFd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (sub) out.directories.push_back(relative);
      Status s = sub ? walkInto(sub.get(), relative, named ? depth : depth + 1) : statusFromErrno(errno, relative);
      if (s.code() == StatusCode::kTooLarge || (named && !s.isOk())) return s;
      if (!s.isOk()) {
        const std::string& why = s.message();
        size_t colon = why.rfind(": ");
        out.skipped.push_back({root_ + "/" + relative, "cannot be read: " + why.substr(colon + 2)});
      }
    } else if (S_ISREG(st.st_mode)) {
      if (wanted) out.files.push_back({root_, relative});
    } else if (S_ISLNK(st.st_mode)) {
      struct stat target {};
      bool toDirectory = ::fstatat(dirFd, name.c_str(), &target, 0) == 0 && S_ISDIR(target.st_mode);
      if (wanted || toDirectory) out.skipped.push_back({root_ + "/" + relative, kLinkNotFollowed, /*link=*/true});
    } else if (wanted) {
      out.skipped.push_back({root_ + "/" + relative, notRegularBecause(st.st_mode)});
    }
    return Status::ok();
  }

  WalkResult out;

 private:
  const std::string& root_;
  const DirectoryWalk& walk_;
  size_t entries_ = 0;
};

}  // namespace

StatusOr<WalkResult> walkDirectory(const std::string& root, const DirectoryWalk& walk, const std::string& start) {
  UniqueFd rootFd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!rootFd) return statusFromErrno(errno, root);
  Walker walker(root, walk);
  Status walked;
  if (start.empty()) {
    walked = walker.walkInto(rootFd.get(), "", 1);
  } else {
    std::string last;
    StatusOr<UniqueFd> parent = openParentsBeneath(rootFd.get(), root, start, &last);
    if (!parent.isOk()) return parent.status();
    walked = walker.take(parent->get(), start, last, 1, /*named=*/true);
  }
  if (!walked.isOk()) return walked;
  return std::move(walker.out);
}

StatusOr<std::string> readFoundFile(const FoundFile& file, size_t maxBytes) {
  if (file.root.empty()) return readFileBounded(file.relative, maxBytes);
  const std::string path = file.path();
  UniqueFd rootFd(::open(file.root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!rootFd) return statusFromErrno(errno, file.root);
  std::string last;
  StatusOr<UniqueFd> parent = openParentsBeneath(rootFd.get(), file.root, file.relative, &last);
  if (!parent.isOk()) return parent.status();
  UniqueFd fd(::openat(parent->get(), last.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW));
  if (!fd) {
    int err = errno;
    struct stat st {};
    if (err == ELOOP && ::fstatat(parent->get(), last.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      return Status(StatusCode::kInvalidArgument, path + ": " + kLinkNotFollowed);
    }
    return statusFromErrno(err, path);
  }
  return readOpenFile(fd.get(), path, maxBytes);
}

}  // namespace nccl_roce
