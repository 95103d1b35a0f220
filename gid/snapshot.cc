#include "gid/snapshot.h"

#include <unistd.h>

#include <ctime>
#include <mutex>

namespace nccl_roce::gid {

namespace {

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  struct tm parts;
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string hostName() {
  char host[256] = {0};
  return ::gethostname(host, sizeof(host) - 1) == 0 ? std::string(host) : std::string();
}

}  // namespace

// The address source's answer, kept as it was given to the resolver.
class SnapshotRecorder::Addresses final : public AddressSource {
 public:
  explicit Addresses(const AddressSource& inner) : inner_(inner) {}
  StatusOr<std::vector<InterfaceAddress>> list() const override {
    auto answer = inner_.list();
    std::lock_guard<std::mutex> lock(mutex_);
    if (answer.isOk()) listed_ = *answer;
    return answer;
  }
  std::optional<std::vector<InterfaceAddress>> listed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return listed_;
  }

 private:
  const AddressSource& inner_;
  mutable std::mutex mutex_;
  mutable std::optional<std::vector<InterfaceAddress>> listed_;
};

// The variables the resolver asked for, kept when the user had set them.
class SnapshotRecorder::Variables final : public Environment {
 public:
  explicit Variables(const Environment& inner) : inner_(inner) {}
  std::optional<std::string> get(const std::string& name) const override {
    std::optional<std::string> value = inner_.get(name);
    std::lock_guard<std::mutex> lock(mutex_);
    if (value) read_[name] = *value;
    return value;
  }
  bool isPrivileged() const override { return inner_.isPrivileged(); }
  std::map<std::string, std::string> read() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return read_;
  }

 private:
  const Environment& inner_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::string> read_;
};

SnapshotRecorder::SnapshotRecorder(const std::string& sysfsRoot, const AddressSource* addresses,
                                   const Environment& user, const FileAccess& files)
    : files_(files, sysfsRoot),
      reader_(sysfsRoot, files_),
      addresses_(addresses != nullptr ? std::make_unique<Addresses>(*addresses) : nullptr),
      variables_(std::make_unique<Variables>(user)) {}

SnapshotRecorder::~SnapshotRecorder() = default;

ResolverSources SnapshotRecorder::sources() const {
  ResolverSources sources;
  sources.sysfs = &reader_;
  sources.addresses = addresses_.get();
  return sources;
}

const Environment& SnapshotRecorder::environment() const {
  return *variables_;
}

Snapshot SnapshotRecorder::snapshot() const {
  Snapshot snapshot;
  snapshot.sysfs = files_.record();
  if (addresses_) snapshot.addresses = addresses_->listed();
  snapshot.environment = variables_->read();
  snapshot.hostname = hostName();
  snapshot.capturedAt = utcNow();
  return snapshot;
}

SnapshotReplay::SnapshotReplay(const Snapshot& snapshot, const std::string& root)
    : files_(snapshot.sysfs, root), reader_(root, files_), variables_(snapshot.environment) {
  if (snapshot.addresses) addresses_.emplace(*snapshot.addresses);
}

ResolverSources SnapshotReplay::sources() const {
  ResolverSources sources;
  sources.sysfs = &reader_;
  if (addresses_) {
    sources.addresses = &*addresses_;
    sources.addressSourceName = "snapshot";
  }
  return sources;
}

}  // namespace nccl_roce::gid
