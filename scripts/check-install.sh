#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cmake --install BUILD_DIR --prefix STAGE` puts the binary in STAGE/bin, and it runs from there:
# `aesgpu --version` prints "aesgpu X.Y.Z" on its first line. Run by ctest (Build.InstallsTheBinary).
set -uo pipefail
build=${1:?usage: check-install.sh BUILD_DIR}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --prefix "$stage" >/dev/null || { echo "cmake --install failed"; exit 1; }
[ -x "$stage/bin/aesgpu" ] || { echo "no $stage/bin/aesgpu"; find "$stage"; exit 1; }
first=$("$stage/bin/aesgpu" --version | head -1)
[[ $first =~ ^aesgpu\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "aesgpu --version began with '$first'"; exit 1; }
echo "ok: $stage/bin/aesgpu: $first"
