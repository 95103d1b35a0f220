// The one identity of a policy (policy/policy_digest.h, docs/rollout.md): what survives the ways operators carry a
// policy's text (a file, "$(cat file)" in an environment variable, a YAML block scalar, an editor that writes CRLF)
// and what does not (anything a rank could read differently, comments included).
#include "policy/policy_digest.h"

#include <gtest/gtest.h>

#include "common/sha256.h"

namespace nccl_roce::policy {
namespace {

const std::string kFile = "[policy]\nname = \"fitted\"\n\n[[rule]]\nprotocol = \"ll\"\n";

TEST(PolicyDigest, IsTheSha256OfTheTextWithoutItsFinalNewline) {
  EXPECT_EQ(policyDigest(kFile), "sha256:" + sha256Hex(kFile.substr(0, kFile.size() - 1)));
}

TEST(PolicyDigest, AFileAndItsTextAsTheShellOrYamlCarryItAgree) {
  std::string shellCat = kFile.substr(0, kFile.size() - 1);  // "$(cat f)" drops every final newline
  std::string yamlKeep = kFile + "\n\n";                     // a `|+` block scalar keeps trailing blank lines
  std::string crlf;
  for (char c : kFile) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  for (const std::string& same : {shellCat, yamlKeep, crlf, kFile + "  \t\n"}) {
    EXPECT_EQ(policyDigest(same), policyDigest(kFile)) << same;
  }
}

TEST(PolicyDigest, EverythingElseCounts) {
  for (const std::string& other : {"# fitted 2026-11-20\n" + kFile, " " + kFile, kFile + "# trailing comment\n",
                                   std::string("[policy]\nname = \"fitted\"\n[[rule]]\nprotocol = \"ll\"\n")}) {
    EXPECT_NE(policyDigest(other), policyDigest(kFile)) << other;
  }
  EXPECT_EQ(policyDigest("").size(), 7u + 64u) << "an empty text has an identity too";
}

TEST(PolicyDigest, ACompositeChangesWithAnyPart) {
  std::string base = compositeDigest(kFile, {{"control", "sha256:aa"}, {"candidate", "sha256:bb"}});
  EXPECT_EQ(compositeDigest(kFile + "\n", {{"control", "sha256:aa"}, {"candidate", "sha256:bb"}}), base);
  EXPECT_NE(compositeDigest(kFile, {{"control", "sha256:aa"}, {"candidate", "sha256:cc"}}), base);
  EXPECT_NE(compositeDigest(kFile, {{"control", "sha256:aa"}, {"other", "sha256:bb"}}), base);
}

}  // namespace
}  // namespace nccl_roce::policy
