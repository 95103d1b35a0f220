// The exit statuses of every command that reads measurements (`ab`, `ab fit`, `ab plan`, `sweep compare|fit|parse`,
// `policy verify`, `proof`): one set for all, so a rollout pipeline tells "the candidate is slower" from "the data
// cannot be trusted" from "the call is wrong" the same way everywhere (docs/ab-testing.md, "Exit status").
#pragma once

namespace nccl_roce::cli {

inline constexpr int kExitOk = 0;
// What the gate is for, found in clean inputs: with --fail-on-slower an arm (for sweep compare, B) slower over the
// range; for policy verify NCCL running other than the policy decides; for proof a check that fails.
inline constexpr int kExitSlower = 1;
// The command line is wrong (CLI11's refusals, a bad --range or --window), or an output cannot be written (or, a
// bug, a fitted policy does not lint).
inline constexpr int kExitUsage = 2;
// The inputs cannot give a verdict: a file that cannot be read or fails its checks, mixed experiments, nothing
// to compare. Under --strict or --fail-on-slower also whatever the report lists and goes on without (a skipped
// file, a communicator whose ranks disagree, a log on both sides): a gate never passes on them. It outranks 1:
// a verdict from inputs with errors is no verdict.
inline constexpr int kExitInputError = 3;

}  // namespace nccl_roce::cli
