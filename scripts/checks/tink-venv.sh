#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes .venv-tink/, a Python virtual environment with Google's `tink`, for the interop tests of
# --mode gcm (tests/app/cli_gcm_test.cpp finds it there). From PyPI, or, on a machine without a
# network, from wheels unpacked in .whl/site<pyver> (pip install --target, for that Python).
# Exit 0 when `import tink` works in the result.
set -uo pipefail
cd "$(dirname "$0")/../.."
python=${PYTHON:-python3}
venv=.venv-tink
if [ -x "$venv/bin/python3" ] && "$venv/bin/python3" -c 'import tink' 2>/dev/null; then exit 0; fi
version=$("$python" -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')
if [ -d ".whl/site$version" ]; then
    # Wheels for this Python, unpacked: a python3 that sees them is all it takes (a plain
    # directory, not a venv, whose python3 would be a link to the system's).
    rm -rf "$venv" && mkdir -p "$venv/bin"
    site=$PWD/.whl/site$version
    printf '#!/bin/sh\nPYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH} exec %s "$@"\n' "$site" "$(command -v "$python")" > "$venv/bin/python3"
    chmod +x "$venv/bin/python3"
else
    "$python" -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check tink
fi
"$venv/bin/python3" -c 'import tink' 2>/dev/null || { echo "tink-venv: no tink in $venv"; exit 1; }
echo "tink-venv: tink in $venv"
