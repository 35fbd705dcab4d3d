#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the dependencies, builds aesgpu in build/, makes .venv-tink (Python's tink, when it can)
# and runs the whole test suite.
# GPU tests skip themselves on machines without a usable CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
# Python's tink for the --mode gcm interop tests; without it (no network) they skip.
scripts/checks/tink-venv.sh || echo "test.sh: the tink interop tests will skip"
ctest --test-dir build --output-on-failure -j"$(nproc)"
