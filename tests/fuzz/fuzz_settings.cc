// Fuzz target: every text an operator hands the tool or the plugin besides policies — the --ifaddrs address
// list, snapshot files, size and range strings of policies and CLI options, and our NCCL_ROCE_ variables as
// the plugin reads them. The first byte picks the parser.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/env.h"
#include "common/strings.h"
#include "gid/address_source.h"
#include "gid/resolve.h"
#include "gid/snapshot.h"
#include "policy/policy_loader.h"
#include "policy/value_range_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      (void)nccl_roce::gid::parseAddressList(text);
      break;
    case 1:
      (void)nccl_roce::gid::snapshotFromJsonText(text);
      break;
    case 2: {
      auto bytes = nccl_roce::parseByteSize(text);
      if (bytes.isOk() && *nccl_roce::parseByteSize(nccl_roce::formatByteSize(*bytes)) != *bytes) __builtin_trap();
      auto range = nccl_roce::policy::parseValueRange(text, nccl_roce::policy::RangeUnit::kBytes);
      if (range.isOk()) {
        auto again = nccl_roce::policy::parseValueRange(
            nccl_roce::policy::formatValueRange(*range, nccl_roce::policy::RangeUnit::kBytes),
            nccl_roce::policy::RangeUnit::kBytes);
        if (!again.isOk() || !(*again == *range)) __builtin_trap();  // formatting round-trips
      }
      break;
    }
    case 3: {
      // NCCL_ROCE_SYSFS_ROOT as the plugin reads it (paths that do not exist resolve to "no devices").
      nccl_roce::MapEnvironment env;
      env.set("NCCL_ROCE_SYSFS_ROOT", "/nonexistent/" + text);
      env.setPrivileged(text.size() % 2);
      (void)nccl_roce::gid::sysfsRootFor(env, nullptr);
      break;
    }
    case 4: {
      // NCCL_ROCE_POLICY values that name no file: built-in names and their near misses.
      std::string value = text.find('/') == std::string::npos ? text : "";
      (void)nccl_roce::policy::loadPolicySpec(value, nullptr);
      break;
    }
  }
  return 0;
}
