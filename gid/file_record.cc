#include "gid/file_record.h"

#include "common/strings.h"

namespace nccl_roce::gid {

namespace {

constexpr StatusCode kRecordableCodes[] = {StatusCode::kNotFound,         StatusCode::kInvalidArgument,
                                           StatusCode::kPermissionDenied, StatusCode::kIoError,
                                           StatusCode::kTooLarge,         StatusCode::kUnavailable};

// The message without the leading "<path>: " every file-access error starts with.
std::string detailOf(const Status& status, const std::string& path) {
  const std::string& message = status.message();
  if (startsWith(message, path + ": ")) return message.substr(path.size() + 2);
  return message;
}

// Keeps an answer, or the failure in its place.
template <typename T>
void keep(std::map<std::string, T>& answers, std::map<std::string, RecordedError>& errors, const std::string& key,
          const std::string& path, const StatusOr<T>& answer) {
  if (answer.isOk()) {
    answers[key] = *answer;
  } else {
    errors[key] = RecordedError{answer.status().code(), detailOf(answer.status(), path)};
  }
}

}  // namespace

bool FileRecord::operator==(const FileRecord& other) const {
  return files == other.files && directories == other.directories && links == other.links &&
         existing == other.existing && errors == other.errors;
}

std::string recordedErrorText(const RecordedError& error) {
  std::string name = statusCodeName(error.code);
  return error.detail.empty() ? name : name + ": " + error.detail;
}

RecordedError recordedErrorFromText(const std::string& text) {
  for (StatusCode code : kRecordableCodes) {
    std::string name = statusCodeName(code);
    if (text == name) return RecordedError{code, ""};
    if (startsWith(text, name + ": ")) return RecordedError{code, text.substr(name.size() + 2)};
  }
  return RecordedError{StatusCode::kIoError, text};
}

// Reads of one directory (a GID table) through the inner file access's own directory reader, recorded.
class RecordingDirectoryFiles final : public DirectoryFiles {
 public:
  RecordingDirectoryFiles(const RecordingFileAccess& recorder, std::unique_ptr<DirectoryFiles> inner, std::string path)
      : recorder_(recorder), inner_(std::move(inner)), path_(std::move(path)) {}
  StatusOr<std::string> read(const std::string& leaf, size_t maxBytes) const override {
    StatusOr<std::string> answer = inner_->read(leaf, maxBytes);
    recorder_.recordRead(path_ + "/" + leaf, answer);
    return answer;
  }

 private:
  const RecordingFileAccess& recorder_;
  std::unique_ptr<DirectoryFiles> inner_;
  std::string path_;
};

RecordingFileAccess::RecordingFileAccess(const FileAccess& inner, std::string root)
    : inner_(inner), root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string RecordingFileAccess::relative(const std::string& path) const {
  return startsWith(path, root_ + "/") ? path.substr(root_.size() + 1) : path;
}

void RecordingFileAccess::recordRead(const std::string& path, const StatusOr<std::string>& answer) const {
  std::lock_guard<std::mutex> lock(mutex_);
  keep(record_.files, record_.errors, relative(path), path, answer);
}

std::unique_ptr<DirectoryFiles> RecordingFileAccess::openDirectory(const std::string& path) const {
  return std::make_unique<RecordingDirectoryFiles>(*this, inner_.openDirectory(path), path);
}

StatusOr<std::string> RecordingFileAccess::read(const std::string& path, size_t maxBytes) const {
  StatusOr<std::string> answer = inner_.read(path, maxBytes);
  recordRead(path, answer);
  return answer;
}

StatusOr<std::vector<std::string>> RecordingFileAccess::list(const std::string& path, size_t maxEntries) const {
  auto answer = inner_.list(path, maxEntries);
  std::lock_guard<std::mutex> lock(mutex_);
  keep(record_.directories, record_.errors, relative(path), path, answer);
  return answer;
}

StatusOr<std::string> RecordingFileAccess::readLink(const std::string& path) const {
  auto answer = inner_.readLink(path);
  std::lock_guard<std::mutex> lock(mutex_);
  keep(record_.links, record_.errors, relative(path), path, answer);
  return answer;
}

bool RecordingFileAccess::exists(const std::string& path) const {
  bool found = inner_.exists(path);
  std::lock_guard<std::mutex> lock(mutex_);
  if (found) record_.existing.insert(relative(path));
  return found;
}

FileRecord RecordingFileAccess::record() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return record_;
}

std::optional<std::string> RecordedFileAccess::relative(const std::string& path) const {
  if (!startsWith(path, root_ + "/")) return std::nullopt;
  return path.substr(root_.size() + 1);
}

Status RecordedFileAccess::missing(const std::string& relativePath, const std::string& fullPath) const {
  auto error = record_.errors.find(relativePath);
  if (error == record_.errors.end()) return Status(StatusCode::kNotFound, fullPath + ": not in the snapshot");
  const RecordedError& recorded = error->second;
  std::string detail =
      recorded.detail.empty() ? std::string(statusCodeName(recorded.code)) + " (recorded)" : recorded.detail;
  return Status(recorded.code, fullPath + ": " + detail);
}

StatusOr<std::string> RecordedFileAccess::read(const std::string& path, size_t maxBytes) const {
  auto rel = relative(path);
  if (!rel) return Status(StatusCode::kNotFound, path + ": outside the snapshot");
  auto file = record_.files.find(*rel);
  if (file == record_.files.end()) return missing(*rel, path);
  if (file->second.size() > maxBytes) return Status(StatusCode::kTooLarge, path + ": more than a page");
  return file->second;
}

StatusOr<std::vector<std::string>> RecordedFileAccess::list(const std::string& path, size_t maxEntries) const {
  auto rel = relative(path);
  if (!rel) return Status(StatusCode::kNotFound, path + ": outside the snapshot");
  auto dir = record_.directories.find(*rel);
  if (dir == record_.directories.end()) return missing(*rel, path);
  if (dir->second.size() > maxEntries) {
    return Status(StatusCode::kTooLarge, path + ": more than " + std::to_string(maxEntries) + " entries");
  }
  return dir->second;
}

StatusOr<std::string> RecordedFileAccess::readLink(const std::string& path) const {
  auto rel = relative(path);
  if (!rel) return Status(StatusCode::kNotFound, path + ": outside the snapshot");
  auto link = record_.links.find(*rel);
  if (link == record_.links.end()) return missing(*rel, path);
  return link->second;
}

bool RecordedFileAccess::exists(const std::string& path) const {
  auto rel = relative(path);
  return rel &&
         (record_.existing.count(*rel) != 0 || record_.files.count(*rel) != 0 || record_.directories.count(*rel) != 0);
}

}  // namespace nccl_roce::gid
