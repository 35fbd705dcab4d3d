#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""README's usage examples run as written (issue 28), so a README that drifts from the binary
fails. Run by ctest (Docs.ReadmeExamplesRun).

Usage: check-readme-examples.py AESGPU_BINARY README.md

Markers, each an HTML comment (invisible once rendered) on the line right before a ```sh fence:
  <!-- runs-in-test -->          the block runs here
  <!-- not-in-test: REASON -->   it cannot (a terminal prompt, a GPU, ssh hosts): REASON says why
Every ```sh block under "## Usage" carries one of the two, so a new example is either tested or
says why not. The marked blocks run in README order, each in its own `bash -euo pipefail`, all
in one fresh directory holding the inputs that fixtures() lists, with this build's aesgpu first on
PATH, no terminal (a prompt fails rather than hangs) and BACKUP_PASS set, as the examples assume.
A command that fails stops the test with its README line and the block's output. That includes
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


def usage_range(lines):
    """Line indexes [begin, end) of the "## Usage" section, its ### subsections included."""
    begin = next((i for i, line in enumerate(lines) if line.rstrip() == "## Usage"), None)
    if begin is None:
        return None
    end = next((i for i in range(begin + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return begin, end


def check_markers(readme, lines, found):
    """Problems with the markers: misplaced ones, and sh blocks under Usage without either."""
    problems = []
    fences = {number - 1 for number, *_ in found}
    for i, line in enumerate(lines):
        stripped = line.strip()
        if (stripped == RUN or SKIP.match(stripped)) and i + 1 not in fences:
            problems.append(f"{readme}:{i + 1}: marker not right before a ``` fence")
        elif stripped.startswith("<!-- runs-in-test") and stripped != RUN:
            problems.append(f"{readme}:{i + 1}: misspelt marker (want {RUN})")
    section = usage_range(lines)
    if section is None:
        problems.append(f"{readme}: no '## Usage' section")
        return problems
    for number, info, _, marker in found:
        if section[0] < number - 1 < section[1] and info == "sh" and marker != RUN and not SKIP.match(marker):
            problems.append(f"{readme}:{number}: a sh block under Usage with neither {RUN} nor "
                            "<!-- not-in-test: REASON --> on the line before it")
    return problems


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


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check-readme-examples.py AESGPU_BINARY README.md")
    binary, readme = os.path.abspath(sys.argv[1]), sys.argv[2]
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = blocks(lines)
    problems = check_markers(readme, lines, found)
    marked = [(number, body) for number, _, body, marker in found if marker == RUN]
    if not marked:
        problems.append(f"{readme}: no block is marked {RUN}: nothing would be tested")
    if problems:
        print("FAIL:\n" + "\n".join(problems))
        return 1

    # The other tools the examples call, as a reader's shell has them: where one is missing (xxd
    # is not in every base image), the test says so and skips (77) rather than fail on the host.
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        print("the README's examples need " + ", ".join(missing) + ", which this machine lacks")
        # CI installs them and must run the examples, not skip them.
        return 1 if os.environ.get("AESGPU_REQUIRE_README_TOOLS") else SKIPPED

    started = time.monotonic()
    top = tempfile.mkdtemp(prefix="aesgpu-readme.")
    try:
        # The build's binary, not an installed one, first on PATH (and nothing else of the build).
        bin_dir, work = os.path.join(top, "bin"), os.path.join(top, "work")
        os.mkdir(bin_dir)
        os.mkdir(work)
        os.symlink(binary, os.path.join(bin_dir, "aesgpu"))
        for name, data in fixtures().items():
            path = os.path.join(work, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), **ENVIRONMENT)
        status = os.path.join(top, "status")
        for number, body in marked:
            failure = run_block(number, body, work, env, status)
            if failure:
                print(f"FAIL: {readme}:{failure}")
                return 1
            print(f"ok: {readme}:{number}: {len(body)} lines ran")
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print(f"ok: {len(marked)} README blocks ran in {time.monotonic() - started:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
