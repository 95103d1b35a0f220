#!/usr/bin/env bash
# clang-format (the repository's .clang-format) on every C and C++ line changed since the commit in
# .ci/format-base: a change may not add or touch a line clang-format would write otherwise. Files are not
# reformatted wholesale (much of the tree predates the check), so only what a change touches is held to it.
# Prints clang-format's diff and fails when there is one; fix with `git clang-format --extensions cc,h,c BASE`.
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(cat .ci/format-base)
if ! git cat-file -e "${base}^{commit}" 2>/dev/null; then
  echo "format: .ci/format-base names ${base}, which this clone does not have (shallow?): nothing checked" >&2
  exit 0
fi
diff=$(git clang-format --diff --extensions cc,h,c "$base" 2>&1)
case "$diff" in
  "clang-format did not modify any files" | "no modified files to format" | "")
    echo "format: every line changed since ${base:0:12} is as clang-format writes it"
    ;;
  *)
    echo "$diff"
    echo "format: lines above differ from clang-format's; run: git clang-format --extensions cc,h,c ${base:0:12}" >&2
    exit 1
    ;;
esac
