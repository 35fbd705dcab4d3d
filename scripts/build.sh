#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the dependencies and builds aesgpu (Release) in build/. Extra arguments go to
# `cmake --build`, e.g. `scripts/build.sh --target aesgpu`. With nvcc on PATH (or in
# /usr/local/cuda/bin) the CUDA backend is built too; without it, a complete CPU-only binary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# NVIDIA's packages put nvcc in /usr/local/cuda/bin without adding it to PATH; CMake looks on PATH.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null
cmake --build build -j"$(nproc)" "$@"
