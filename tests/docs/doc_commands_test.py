#!/usr/bin/python3
"""The doc-command harness fails where it must: a wrong output, a wrong exit status, an untagged or indented block,
an unknown `# needs:` tag, a transcript hidden in a text block, a block left open; and passes what the
normalisation allows, no more.

    tests/docs/doc_commands_test.py --build build
"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [
    # (what, markdown, passes)
    ("shown output matches", "```console\n$ echo hello\nhello\n```\n", True),
    ("a different output fails", "```console\n$ echo hello\nhullo\n```\n", False),
    ("a missing output line fails", "```console\n$ printf 'a\\nb\\n'\na\n```\n", False),
    ("an unexpected exit status fails", "```console\n$ false\n```\n", False),
    ("'# exit N' states the status", "```console\n$ (exit 3)   # exit 3\n```\n", True),
    ("a sh command that fails fails", "```sh\nfalse\n```\n", False),
    ("'...' stands for lines", "```console\n$ printf 'a\\nb\\nc\\n'\na\n...\n```\n", True),
    ("' ...' ends a line", "```console\n$ echo 'hello world'\nhello ...\n```\n", True),
    ("' ...' keeps the text before it", "```console\n$ echo 'hello world'\nhullo ...\n```\n", False),
    ("<pid> is digits", "```console\n$ echo \"x.$$.json\"\nx.<pid>.json\n```\n", True),
    ("<pid> is not anything", "```console\n$ echo x.abc.json\nx.<pid>.json\n```\n", False),
    ("/tmp is private and reads /tmp", "```console\n$ mkdir -p /tmp/d && cd /tmp/d && pwd\n/tmp/d\n```\n", True),
    ("state carries between blocks", "```console\n$ X=5\n```\n\ntext\n\n```console\n$ echo $X\n5\n```\n", True),
    ("stderr interleaves with stdout", "```console\n$ echo a; echo b >&2; echo c\na\nb\nc\n```\n", True),
    ("a marked block does not run", "```sh\n# needs: gpu (a GPU)\nfalse\n```\n", True),
    ("an unknown tag is refused", "```sh\n# needs: luck\nfalse\n```\n", False),
    ("an untagged block is refused", "```\necho hi\n```\n", False),
    ("an indented block is refused", "Text.\n\n    echo hi\n", False),
    ("a transcript in a text block is refused", "```text\n$ echo hi\nhi\n```\n", False),
    ("other languages do not run", "```toml\nname = \"x\"\n```\n", True),
    ("a block left open is refused", "```text\nlog line\n\nprose\n\n```json\n{}\n```\n", False),
    ("a block open at the end is refused", "Text.\n\n```toml\nname = \"x\"\n", False),
    ("an empty block open at the end is refused", "Text.\n\n```toml\n", False),
    ("a longer fence may hold a fence", "````text\n```json\n{}\n```\n````\n", True),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    wrong = []
    for what, markdown, passes in CASES:
        with tempfile.TemporaryDirectory(prefix="nccl-roce-doc-harness-") as source:
            os.mkdir(os.path.join(source, "docs"))
            with open(os.path.join(source, "docs", "case.md"), "w") as f:
                f.write("# Case\n\n" + markdown)
            done = subprocess.run([sys.executable, os.path.join(HERE, "doc_commands.py"), "--source", source,
                                   "--build", os.path.abspath(args.build), "docs/case.md"],
                                  capture_output=True, text=True, check=False)
            if (done.returncode == 0) != passes:
                wrong.append(f"{what}: {'failed' if passes else 'passed'}, expected the opposite\n{done.stdout}")
    print(f"{len(CASES)} cases" + (f"; {len(wrong)} wrong:" if wrong else ""))
    for w in wrong:
        print(w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
