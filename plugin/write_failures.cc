#include "plugin/write_failures.h"

#include "common/strings.h"

namespace nccl_roce::plugin {

void WriteFailures::report(const std::string& path, const Status& written) noexcept {
  if (written.isOk() || failures_.fetch_add(1, std::memory_order_relaxed) != 0) return;
  try {
    // The status names what failed and why: the file ("...: No space left on device") or the directory on the
    // way to it ("/var/lib/nccl-roce/vllm-0: a symbolic link, not followed ...").
    std::string why = written.message();
    if (startsWith(why, path + ": ")) why = why.substr(path.size() + 2);
    NCCL_ROCE_WARN(logger_, kLogInit | kLogTuning | kLogProfile,
                   "cannot write the %s %s: %s; later writes try again, and their failures are not repeated here "
                   "(%s, docs/security.md)",
                   what_, path.c_str(), why.c_str(), variable_);
  } catch (...) {
    // No memory for the line: the failure is counted all the same.
  }
}

}  // namespace nccl_roce::plugin
