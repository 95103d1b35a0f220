// Writing policy rules as TOML text (docs/policy-format.md), for the commands that generate policies
// (`sweep fit`, `ab fit`): one writer, so generated rules read alike and always use the loader's spelling.
#pragma once

#include <string>
#include <string_view>

#include "policy/policy.h"
#include "telemetry/choice.h"

namespace nccl_roce::policy {

// A rule with one (algorithm, protocol) choice, as a generated policy states it.
struct RuleText {
  std::string name;
  std::string collective;  // as policies name it ("allreduce", policyCollectiveName); empty: any collective
  ValueRange bytes;        // written as a range ("64K..256K", "*"; policy/value_range_text.h)
  int nodes = 0;           // 0: any node count
  int ranks = 0;           // 0: any rank count
  int algorithm = -1;      // -1: not stated (NCCL's cheapest)
  int protocol = -1;       // -1: not stated
  int channels = 0;        // 0: NCCL decides
  ChunkSizes chunkSizes;   // NCCL's own where none is set
};

// "[[rule]]" and its keys, one a line, in the order the policy format documents them. chunk_size is one value
// when the rule states its protocol or sets the same for every protocol, else a table of the protocols it sets.
std::string formatRule(const RuleText& rule);

// A TOML basic string: quoted, with quotes, backslashes and control characters escaped.
std::string tomlString(std::string_view text);

// Text from outside (an arm's or a rule's name) made safe inside a TOML comment: control characters, which
// TOML forbids there and a newline would end the comment with, become '?'.
std::string tomlCommentText(std::string_view text);

// A collective as policies name it: "allreduce".
std::string policyCollectiveName(int collective);

// The part of a generated rule's name that says its choice: each lever it sets, lowercased, after a dash
// ("-ring-ll", "-ring-ch8", "-simple-chunk256k", "-tree-ll128-chunkx2"); "" for a choice that leaves all to NCCL.
// `sweep fit` and `ab fit` name their rules with it, so the names read alike.
std::string choiceNameSuffix(const telemetry::Choice& choice);

}  // namespace nccl_roce::policy
