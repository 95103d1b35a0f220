#include "policy/design_toml.h"

#include <algorithm>
#include <string>

namespace nccl_roce::policy {

namespace {

// A whole number from lo to hi; anything else is `what`'s error, with `advice` on what to write.
std::optional<uint32_t> wholeNumber(TomlReader& r, const toml::node& node, const char* key, int64_t lo, int64_t hi,
                                    const std::string& advice) {
  std::optional<int64_t> value = node.is_integer() ? node.value<int64_t>() : std::nullopt;
  if (value && *value >= lo && *value <= hi) return static_cast<uint32_t>(*value);
  r.error(node, std::string(key) + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                    ": " + advice);
  return std::nullopt;
}

void readSwitchback(TomlReader& r, const toml::table& header, Switchback& out) {
  const std::string advised = "write block = " + std::to_string(kAdvisedSwitchbackBlock) +
                              " (tuner calls per turn; docs/ab-testing.md, \"Choosing the block\")";
  if (const toml::node* block = header.get("block")) {
    std::optional<int64_t> value = block->is_integer() ? block->value<int64_t>() : std::nullopt;
    if (value && *value > kMaxSwitchbackBlock && *value <= (int64_t{1} << 32)) {
      r.error(*block, "block = " + std::to_string(*value) +
                          " turns too seldom inside a CUDA graph: collectives captured into one take their turn's arm "
                          "for good, and a decode graph of 64 all-reduces (a 32-layer model) would hold " +
                          (*value >= 64 ? std::string("one arm, so arm and batch size could not be told apart")
                                        : std::string("too few rounds of turns to judge by")) +
                          "; at most " + std::to_string(kMaxSwitchbackBlock) + ": " + advised);
    } else {
      out.block = wholeNumber(r, *block, "block", 1, kMaxSwitchbackBlock, advised).value_or(0);
    }
  } else {
    r.error(header.source(), "design = \"switchback\" needs the turn's length: " + advised);
  }
  out.washout = out.block > 0 ? std::min(kDefaultWashout, out.block - 1) : kDefaultWashout;
  if (const toml::node* washout = header.get("washout")) {
    // Fewer than a block; without a usable block only the block's own error is worth reading.
    int64_t most = out.block > 0 ? static_cast<int64_t>(out.block) - 1 : kMaxSwitchbackBlock - 1;
    out.washout = wholeNumber(r, *washout, "washout", 0, most,
                              "the collectives of a size bucket dropped after its arm changes, fewer than a block "
                              "(" +
                                  std::to_string(kDefaultWashout) + " unless written)")
                      .value_or(out.washout);
  }
}

}  // namespace

void readDesign(TomlReader& r, const toml::table& header, Experiment& experiment) {
  const toml::node* design = header.get("design");
  if (design != nullptr) {
    std::optional<std::string> name = r.string(*design, "design");
    if (name && *name == designName(ExperimentDesign::kSwitchback)) {
      experiment.design = ExperimentDesign::kSwitchback;
    } else if (name && *name != designName(ExperimentDesign::kPerCommunicator)) {
      r.error(*design, "design '" + *name +
                           "' is not one this version knows: write design = \"switchback\" to "
                           "turn every communicator between the arms, or leave design out (\"per-communicator\")");
    }
  }
  if (experiment.design == ExperimentDesign::kSwitchback) {
    readSwitchback(r, header, experiment.switchback);
    return;
  }
  for (const char* key : {"block", "washout"}) {
    if (const toml::node* node = header.get(key)) {
      r.error(*node, std::string(key) +
                         " applies to design = \"switchback\" only: add that line, or remove this "
                         "one");
    }
  }
}

void checkDesignArms(TomlReader& r, const toml::table& header, const Experiment& experiment) {
  if (experiment.design != ExperimentDesign::kSwitchback) return;
  size_t arms = experiment.arms.size() + (experiment.explore ? experiment.explore->arms.size() : 0);
  if (arms >= 2) return;
  r.error(header.source(), "a switchback experiment turns between arms, and this one has " + std::to_string(arms) +
                               ": add an [[experiment.arm]], or name the policy itself in NCCL_ROCE_POLICY");
}

}  // namespace nccl_roce::policy
