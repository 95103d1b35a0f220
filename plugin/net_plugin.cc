#include "plugin/net_plugin.h"

namespace nccl_roce::plugin {

ncclResult_t NetPlugin::init(ncclDebugLogger_t logFunction) noexcept {
  logger_.setFunction(logFunction);
  try {
    std::call_once(once_, [this] { apply(); });
  } catch (...) {
    NCCL_ROCE_WARN(logger_, kLogInit | kLogNet, "net: applying resolved settings failed; NCCL's defaults apply");
  }
  return ncclSuccess;
}

void NetPlugin::apply() {
  if (envPlugin_ != nullptr && envPlugin_->serving()) {
    envPlugin_->flushPendingLog(logger_);
    NCCL_ROCE_INFO(logger_, kLogInit | kLogNet,
                   "net: the nccl-roce env plugin serves the resolved settings; stepping aside so NCCL's own IB "
                   "transport carries the traffic");
    return;
  }
  ServedSettings served = resolveWithin(resolver_, env_, deadline_, logger_);
  if (!served.failure.empty()) {
    NCCL_ROCE_WARN(logger_, kLogInit | kLogNet, "net: %s; environment unchanged, NCCL's defaults apply",
                   served.failure.c_str());
  }
  size_t applied = 0;
  for (const auto& [name, value] : served.values) {
    if (env_.get(name)) continue;  // set by the user since resolution: theirs wins
    if (setEnv_(name.c_str(), value.c_str()) == 0) ++applied;
  }
  if (served.values.empty()) return;
  NCCL_ROCE_INFO(logger_, kLogInit | kLogNet,
                 "net: set %zu variable(s) for NCCL's own IB transport, which carries the traffic (this plugin "
                 "reports no devices):",
                 applied);
  for (const auto& line : served.lines) NCCL_ROCE_INFO(logger_, kLogInit | kLogNet, "net: %s", line.c_str());
}

ncclResult_t NetPlugin::devices(int* ndev) noexcept {
  if (ndev != nullptr) *ndev = 0;
  return ncclSuccess;
}

}  // namespace nccl_roce::plugin
