#!/usr/bin/env bash
# The format check, a file-level ratchet: clang-format (the repository's .clang-format; Debian 12's clang-format
# 14, which scripts/install-deps.sh installs) over every tracked C and C++ file.
#   - A file not listed in .ci/unformatted-files must be exactly as clang-format writes it.
#   - A listed file must still differ: once it is formatted it leaves the list, so the list only shrinks. The list
#     names tracked files only.
#   - In a listed file, the lines a change touches (since the commit in .ci/format-base) must be as clang-format
#     writes them, as before the ratchet.
# Prints what is wrong and how to fix it, and fails; CONTRIBUTING.md ("Format") says how the list is meant to empty.
set -euo pipefail
cd "$(dirname "$0")/.."
list=.ci/unformatted-files
base=$(cat .ci/format-base)

mapfile -t files < <(git ls-files -- '*.cc' '*.h' '*.c')
listed=$({ grep -v -e '^#' -e '^[[:space:]]*$' "$list" || true; } | sort -u)  # empty once every file is formatted
# clang-format names every file that differs in its warnings: "path:line:col: warning: ... [-Wclang-format-violations]".
unclean=$(clang-format --dry-run "${files[@]}" 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: warning: .*\[-Wclang-format-violations\]$/\1/p' | sort -u)
tracked=$(printf '%s\n' "${files[@]}" | sort -u)

failed=0
newly_unformatted=$(comm -23 <(echo "$unclean") <(echo "$listed") | sed '/^$/d')
now_formatted=$(comm -12 <(comm -23 <(echo "$listed") <(echo "$unclean")) <(echo "$tracked") | sed '/^$/d')
not_tracked=$(comm -23 <(echo "$listed") <(echo "$tracked") | sed '/^$/d')
for f in $newly_unformatted; do
  diff -u --label "$f" --label "$f (clang-format)" "$f" <(clang-format "$f") | head -n 40 || true
done
if [ -n "$newly_unformatted" ]; then
  echo "format: not as clang-format writes them, and not in $list: $(echo $newly_unformatted)" >&2
  echo "format: fix with: clang-format -i $(echo $newly_unformatted)" >&2
  failed=1
fi
if [ -n "$now_formatted" ]; then
  echo "format: formatted now, so remove from $list (it only shrinks): $(echo $now_formatted)" >&2
  failed=1
fi
if [ -n "$not_tracked" ]; then
  echo "format: $list names files that are not tracked C or C++ files; remove: $(echo $not_tracked)" >&2
  failed=1
fi

# The lines changed in files still on the list.
if [ -n "$listed" ] && [ -z "$not_tracked" ]; then
  if git cat-file -e "${base}^{commit}" 2>/dev/null; then
    # shellcheck disable=SC2086
    diff=$(git clang-format --diff --extensions cc,h,c "$base" -- $listed 2>&1)
    case "$diff" in
      "clang-format did not modify any files" | "no modified files to format" | "") ;;
      *)
        echo "$diff"
        echo "format: lines above, changed since ${base:0:12} in files of $list, differ from clang-format's;" \
          "run: git clang-format --extensions cc,h,c ${base:0:12}" >&2
        failed=1
        ;;
    esac
  else
    echo "format: .ci/format-base names ${base}, which this clone does not have (shallow?): changed lines of" \
      "listed files not checked" >&2
  fi
fi

[ "$failed" = 0 ] || exit 1
n_listed=$(echo "$listed" | sed '/^$/d' | wc -l)
echo "format: $(($(echo "$tracked" | wc -l) - n_listed)) files as clang-format writes them; $n_listed still listed in" \
  "$list, their lines changed since ${base:0:12} as clang-format writes them"
