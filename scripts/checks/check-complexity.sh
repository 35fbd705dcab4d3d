#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a function is more tangled or longer than a reader can hold at once: cyclomatic
# complexity over 15 or more than 100 lines (lizard). Functions that were so before this check
# existed are listed in scripts/checks/complexity-allowlist.txt, to be taken off as they are split; a
# new one fails. In api/, app/, job/ and format/ nothing may pass complexity 20 or 80 lines, with
# no list. Uses $LIZARD, else lizard on PATH, else makes .venv-lint with it from PyPI.
set -euo pipefail
cd "$(dirname "$0")/../.."
lizard=${LIZARD:-}
if [ -z "$lizard" ]; then
  if command -v lizard >/dev/null; then
    lizard=lizard
  else
    [ -x .venv-lint/bin/lizard ] || { python3 -m venv .venv-lint && .venv-lint/bin/pip install -q lizard==1.24.3; }
    lizard=.venv-lint/bin/lizard
  fi
fi
"$lizard" --languages cpp --CCN 15 --length 100 --warnings_only --whitelist scripts/checks/complexity-allowlist.txt \
  aes_cpu aes_gpu api app bench cipher common engine examples format include io job keys
# Where the command and the file job live (the library issue's bar, no list of exceptions): no
# function over complexity 20 or 80 lines.
"$lizard" --languages cpp --CCN 20 --length 80 --warnings_only api app job format
