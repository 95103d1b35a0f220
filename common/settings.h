// Every NCCL_ROCE_* variable the library and the command read, declared once: its name, what its value is, and
// what holds while it is unset. Code reads a setting through its entry (`env.get(settings::kStats.name)`) and takes
// a numeric default from it; docs/environment.md gives each its heading and states the same default
// (tests/unit/common/settings_test.cc checks both). Variables of the test suite are not settings.
#pragma once

#include <array>

namespace nccl_roce::settings {

// What a value is; the reader of each setting parses it and says once what it cannot use.
enum class Kind {
  kPath,          // a file, directory or path prefix
  kPolicy,        // a built-in policy name or a policy file
  kPolicyText,    // a policy's TOML text
  kDigest,        // sha256: and 64 hex digits
  kWholeSeconds,  // a whole number of seconds
  kSeconds,       // a decimal number of seconds
  kSwitch,        // `0` turns it off; anything else, or unset, on
  kChunkSize,     // bytes (256K, 1M) or a factor of NCCL's (x0.5)
};

struct Setting {
  const char* name;
  Kind kind;
  // The value that holds while the variable is unset, as docs/environment.md writes it (in backquotes); "" when
  // unset means "not used" (the docs then say what, after "Unset").
  const char* unsetValue;
};

inline constexpr Setting kSysfsRoot{"NCCL_ROCE_SYSFS_ROOT", Kind::kPath, "/sys"};
inline constexpr Setting kPolicy{"NCCL_ROCE_POLICY", Kind::kPolicy, "inference"};
inline constexpr Setting kPolicyInline{"NCCL_ROCE_POLICY_INLINE", Kind::kPolicyText, ""};
inline constexpr Setting kPolicyDigest{"NCCL_ROCE_POLICY_DIGEST", Kind::kDigest, ""};
inline constexpr Setting kPolicyPinWait{"NCCL_ROCE_POLICY_PIN_WAIT", Kind::kWholeSeconds, "90"};
inline constexpr Setting kStats{"NCCL_ROCE_STATS", Kind::kPath, ""};
inline constexpr Setting kStatsInterval{"NCCL_ROCE_STATS_INTERVAL", Kind::kSeconds, "60"};
inline constexpr Setting kProfile{"NCCL_ROCE_PROFILE", Kind::kSwitch, ""};
inline constexpr Setting kMetrics{"NCCL_ROCE_METRICS", Kind::kPath, ""};
inline constexpr Setting kChunkSize{"NCCL_ROCE_CHUNK_SIZE", Kind::kChunkSize, ""};
inline constexpr Setting kAutoEnable{"NCCL_ROCE_AUTO_ENABLE", Kind::kSwitch, ""};  // read by the wheel and doctor

inline constexpr std::array kAll{kSysfsRoot,     kPolicy,  kPolicyInline, kPolicyDigest, kPolicyPinWait, kStats,
                                 kStatsInterval, kProfile, kMetrics,      kChunkSize,    kAutoEnable};

// A whole number written in decimal digits ("90"), at compile time: a numeric default read from its entry.
constexpr int wholeNumber(const char* text) {
  int value = 0;
  for (; *text >= '0' && *text <= '9'; ++text) value = value * 10 + (*text - '0');
  return value;
}

}  // namespace nccl_roce::settings
