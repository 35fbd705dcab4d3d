#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The examples of README.md and of docs/usage.md run as written (issues 28 and 42), so docs that
drift from the binary fail. Run by ctest, one test per file (Docs.ReadmeExamplesRun,
Docs.UsageExamplesRun).

Usage: check-readme-examples.py AESGPU_BINARY FILE.md...

Markers, each an HTML comment (invisible once rendered) on the line right before a ```sh fence:
  <!-- runs-in-test -->          the block runs here
  <!-- not-in-test: REASON -->   it cannot (a terminal prompt, a GPU, ssh hosts): REASON says why
Every ```sh block in a file given carries one of the two, so a new example is either tested or
says why not, and each file has at least one block that runs. The marked blocks of each file run
in the file's order, each in its own `bash -euo pipefail`, all in one fresh directory for that
file holding the inputs that fixtures() lists, with this build's aesgpu first on PATH, no
terminal (a prompt fails rather than hangs) and BACKUP_PASS set, as the examples assume. A
command that fails stops the test with its file and line and the block's output. That includes
the left side of `a && b`, which errexit would let pass; so an example may not rely on a command
failing (`a || b`)."""

import os
import re
import shlex
import signal
import shutil
import subprocess
import sys
import tempfile
import time

RUN = "<!-- runs-in-test -->"
SKIP = re.compile(r"<!-- not-in-test: \S.* -->$")
FENCE = re.compile(r"^( *)```(\S*)\s*$")
BLOCK_TIMEOUT_S = 30


def fixtures():
    """The inputs the examples name, small: file name -> bytes."""
    rand = os.urandom
    text = b"".join(b"line %d of a log\n" % i for i in range(3000))  # ~60 KiB
    return {
        "report.pdf": rand(10_000),
        "big.log": text,
        "photos/beach.jpg": rand(3_000),
        "photos/hills.jpg": rand(5_000),
        "notes.txt": b"a short note\n",
        "a": rand(1_000),  # not a whole number of blocks: padding is exercised
        "db.dump": rand(50_000),
    }


# What the examples take from the environment (a variable that a user has set beforehand).
ENVIRONMENT = {"BACKUP_PASS": "correct horse battery staple"}

# Put before each block. The DEBUG trap runs before every command: a nonzero $? there is a
# command that failed and did not stop the block (`false && x`). Either way, the line of the
# last command started goes to the status file for the report.
PRELUDE = r"""__report() { printf '%s %s\n' "$__line" "$1" > {status}; }
trap '__s=$?; if [ "$__s" -ne 0 ]; then __report "$__s"; trap - EXIT; exit "$__s"; fi; __line=$LINENO' DEBUG
trap '__s=$?; [ "$__s" -eq 0 ] || __report "$__s"' EXIT
"""


def blocks(lines):
    """(fence line number, info string, body lines, marker) for every fenced block."""
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, indent, info = i, m.group(1), m.group(2)
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            i += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[start + 1 : i]]
        marker = lines[start - 1].strip() if start > 0 else ""
        found.append((start + 1, info, body, marker))
        i += 1
    return found


def check_markers(doc, lines, found):
    """Problems with the markers: misplaced ones, and sh blocks without either."""
    problems = []
    fences = {number - 1 for number, *_ in found}
    for i, line in enumerate(lines):
        stripped = line.strip()
        if (stripped == RUN or SKIP.match(stripped)) and i + 1 not in fences:
            problems.append(f"{doc}:{i + 1}: marker not right before a ``` fence")
        elif stripped.startswith("<!-- runs-in-test") and stripped != RUN:
            problems.append(f"{doc}:{i + 1}: misspelt marker (want {RUN})")
        elif stripped.startswith("<!-- not-in-test") and not SKIP.match(stripped):
            problems.append(f"{doc}:{i + 1}: misspelt marker (want <!-- not-in-test: REASON -->)")
    for number, info, _, marker in found:
        if info == "sh" and marker != RUN and not SKIP.match(marker):
            problems.append(f"{doc}:{number}: a sh block with neither {RUN} nor "
                            "<!-- not-in-test: REASON --> on the line before it")
    return problems


def marked_blocks(doc):
    """(the blocks of doc to run as (fence line number, body), the problems found in doc)."""
    with open(doc, encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = blocks(lines)
    problems = check_markers(doc, lines, found)
    marked = [(number, body) for number, _, body, marker in found if marker == RUN]
    if not marked:
        problems.append(f"{doc}: no block is marked {RUN}: nothing would be tested")
    return marked, problems


def run_block(number, body, work, env, status):
    """Runs one block; None when it passed, else the report."""
    script = PRELUDE.replace("{status}", shlex.quote(status)) + "\n".join(body) + "\n"
    offset = PRELUDE.count("\n")
    if os.path.exists(status):
        os.remove(status)
    # A session of its own: no terminal to prompt on, and one group to kill if it hangs.
    block = subprocess.Popen(["bash", "-euo", "pipefail", "-c", script, "readme-block"], cwd=work, env=env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    try:
        output, _ = block.communicate(timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(block.pid, signal.SIGKILL)
        output, _ = block.communicate()
        return f"{number}: the block ran over {BLOCK_TIMEOUT_S} s; its output:\n{output.decode(errors='replace')}"
    if block.returncode == 0:
        return None
    line, code = None, block.returncode
    if os.path.exists(status):
        with open(status) as f:
            fields = f.read().split()
        if len(fields) == 2 and fields[0].isdigit():
            line, code = int(fields[0]) - offset, int(fields[1])
    where = number + line if line and 0 < line <= len(body) else number
    text = body[line - 1].strip() if line and 0 < line <= len(body) else "(the block)"
    output = output.decode(errors="replace").rstrip()
    indented = "\n".join("    " + out for out in output.splitlines()) or "    (no output)"
    return f"{where}: exit status {code} (block at line {number}):\n  $ {text}\n  the block's output:\n{indented}"


TOOLS = ("openssl", "xxd", "tar", "cmp")
SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this test


def run_doc(doc, marked, top, env):
    """Runs doc's marked blocks in a fresh directory of their own; False at the first failure."""
    work = tempfile.mkdtemp(prefix="work.", dir=top)
    for name, data in fixtures().items():
        path = os.path.join(work, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    status = os.path.join(top, "status")
    for number, body in marked:
        failure = run_block(number, body, work, env, status)
        if failure:
            print(f"FAIL: {doc}:{failure}")
            return False
        print(f"ok: {doc}:{number}: {len(body)} lines ran")
    return True


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: check-readme-examples.py AESGPU_BINARY FILE.md...")
    binary, docs = os.path.abspath(sys.argv[1]), sys.argv[2:]
    marked, problems = {}, []
    for doc in docs:
        marked[doc], found = marked_blocks(doc)
        problems += found
    if problems:
        print("FAIL:\n" + "\n".join(problems))
        return 1

    # The other tools the examples call, as a reader's shell has them: where one is missing (xxd
    # is not in every base image), the test says so and skips (77) rather than fail on the host.
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        print("the examples need " + ", ".join(missing) + ", which this machine lacks")
        # CI installs them and must run the examples, not skip them.
        return 1 if os.environ.get("AESGPU_REQUIRE_README_TOOLS") else SKIPPED

    started = time.monotonic()
    top = tempfile.mkdtemp(prefix="aesgpu-readme.")
    try:
        # The build's binary, not an installed one, first on PATH (and nothing else of the build).
        bin_dir = os.path.join(top, "bin")
        os.mkdir(bin_dir)
        os.symlink(binary, os.path.join(bin_dir, "aesgpu"))
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), **ENVIRONMENT)
        for doc in docs:
            if not run_doc(doc, marked[doc], top, env):
                return 1
    finally:
        shutil.rmtree(top, ignore_errors=True)
    count = sum(len(blocks_of_doc) for blocks_of_doc in marked.values())
    print(f"ok: {count} blocks of {', '.join(docs)} ran in {time.monotonic() - started:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
