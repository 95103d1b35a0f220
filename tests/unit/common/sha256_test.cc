// SHA-256 against the FIPS 180-4 examples and, at every length around the padding boundaries, coreutils'
// sha256sum: the digest an operator computes by hand must equal ours.
#include "common/sha256.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce {
namespace {

TEST(Sha256, MatchesTheStandardsExamples) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, FeedingInPiecesGivesTheSameDigest) {
  std::string text(300, 'x');
  for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i % 26);
  Sha256 pieces;
  for (size_t at = 0; at < text.size(); at += 7) pieces.update(std::string_view(text).substr(at, 7));
  std::array<uint8_t, 32> digest = pieces.finish();
  std::string hex;
  for (uint8_t b : digest) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", b);
    hex += two;
  }
  EXPECT_EQ(hex, sha256Hex(text));
}

TEST(Sha256, AgreesWithSha256sumAtEveryLengthAroundTheBlockBoundaries) {
  testing::TempDir dir;
  for (size_t length : {1u, 54u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 127u, 128u, 129u}) {
    std::string text(length, 'q');
    text[0] = '#';
    std::string path = dir.writeFile("f" + std::to_string(length), text);
    auto r = testing::runCommand("sha256sum " + path);
    ASSERT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.out.substr(0, 64), sha256Hex(text)) << length;
  }
}

}  // namespace
}  // namespace nccl_roce
