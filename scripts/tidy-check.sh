#!/usr/bin/env bash
# clang-tidy (Debian 12's clang-tidy 14, the checks of .clang-tidy) on the lines a change touches, like the format
# check: the C and C++ lines that differ from the base other than in whitespace (a format-only change costs nothing).
# The base is $NCCL_ROCE_TIDY_BASE if set, else where this branch left main, else (on main itself, or a clone with
# no main) the first parent: the last commit, or everything the last merge brought. Needs the build's
# compile_commands.json ($BUILD_DIR, default build). Every finding fails the check; CONTRIBUTING.md ("Static
# analysis") says how to justify an exception.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
[ -f "$build_dir/compile_commands.json" ] || {
  echo "tidy: $build_dir/compile_commands.json missing; build first (scripts/build.sh)" >&2
  exit 1
}

base=${NCCL_ROCE_TIDY_BASE:-}
if [ -z "$base" ]; then
  head=$(git rev-parse HEAD)
  if git rev-parse -q --verify main >/dev/null && [ "$(git merge-base HEAD main)" != "$head" ]; then
    base=$(git merge-base HEAD main)
  elif git rev-parse -q --verify 'HEAD^1' >/dev/null; then
    base=$(git rev-parse 'HEAD^1')
  else
    echo "tidy: no base to compare with (a shallow clone of one commit?): nothing checked" >&2
    exit 0
  fi
fi

# A file's base is compared as clang-format writes it (the format ratchet keeps unlisted files formatted), so a
# line that only moved or rewrapped is not "changed"; a file on .ci/unformatted-files compares as it is.
listed=$(grep -v -e '^#' -e '^[[:space:]]*$' .ci/unformatted-files || true)
diff=""
for f in $(git diff --name-only --diff-filter=AMR "$base" -- '*.cc' '*.h' '*.c'); do
  [ -f "$f" ] || continue
  old=$(git cat-file -e "$base:$f" 2>/dev/null && git show "$base:$f" || true)
  if ! grep -qxF "$f" <<<"$listed"; then old=$(clang-format --assume-filename="$f" <<<"$old"); fi
  diff+=$(diff -U0 -w --label "a/$f" --label "b/$f" <(echo "$old") "$f" || true)$'\n'
done
files=$(echo "$diff" | sed -n 's#^+++ b/##p' | sort -u)
if [ -z "$files" ]; then
  echo "tidy: no C or C++ lines changed since ${base:0:12}"
  exit 0
fi
# clang-tidy-diff runs clang-tidy once per file with a line filter; it does not report findings in its exit status,
# so the output decides.
out=$(printf '%s' "$diff" | clang-tidy-diff -p1 -path "$build_dir" -j"$(nproc)" -quiet -extra-arg=-w \
  -clang-tidy-binary "$(command -v clang-tidy-14 || command -v clang-tidy)" 2>&1) || true
findings=$(echo "$out" | grep -E "(^|: )(warning|error): " || true)
if [ -n "$findings" ]; then
  echo "$out" | grep -v -E '^$|^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed|^Use -header-filter|^Use -system-headers'
  echo "tidy: $(echo "$findings" | wc -l) findings on lines changed since ${base:0:12}" >&2
  exit 1
fi
echo "tidy: $(echo "$files" | wc -l) files, lines changed since ${base:0:12}, clean"
