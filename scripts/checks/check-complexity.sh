#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a function is more tangled or longer than a reader can hold at once: cyclomatic
# complexity over 15 or more than 80 lines (lizard), in every folder of product code, the CUDA
# kernels (.cu, .cuh) included: lizard reads those only when told they are C++, as here. The
# exceptions are the lines of scripts/checks/complexity-allowlist.txt, each `path:function  # why`.
# Usage: scripts/checks/check-complexity.sh [FOLDER...] (default: the product folders).
# Uses a python3 that imports lizard ($LIZARD_PYTHON, else python3), else makes .venv-lint with
# lizard from PyPI.
set -euo pipefail
cd "$(dirname "$0")/../.."
python=${LIZARD_PYTHON:-python3}
if ! "$python" -c 'import lizard' 2>/dev/null; then
  [ -x .venv-lint/bin/python ] && .venv-lint/bin/python -c 'import lizard' 2>/dev/null ||
    { python3 -m venv .venv-lint && .venv-lint/bin/pip install -q lizard==1.24.3; }
  python=.venv-lint/bin/python
fi
[ $# -gt 0 ] || set -- aes_cpu aes_gpu api app bench cipher common engine examples format include io job keys
allowlist=scripts/checks/complexity-allowlist.txt
# Every exception says why: a line without a reason fails, as one naming no function does.
if grep -v -E '^[[:space:]]*(#|$)' "$allowlist" | grep -v -E '^[^[:space:]#]+:[^[:space:]#]+[[:space:]]+# [^[:space:]]'; then
  echo "$allowlist: the lines above are not 'path:function  # reason'"
  exit 1
fi
"$python" - "$allowlist" "$@" <<'PY'
import sys
from lizard_languages.clike import CLikeReader
from lizard_core.cli import main
CLikeReader.ext = CLikeReader.ext + ["cu", "cuh"]
allowlist, folders = sys.argv[1], sys.argv[2:]
sys.exit(main(["lizard", "--languages", "cpp", "--CCN", "15", "--length", "80", "--warnings_only",
               "--whitelist", allowlist] + folders))
PY
