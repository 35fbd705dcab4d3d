#!/usr/bin/env bash
# Installs the dependencies, builds aesgpu in build/ and runs the whole test suite.
# GPU tests skip themselves on machines without a usable CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DAESGPU_BUILD_TESTS=ON
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
