#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Probe: the facts about a GPU host that the file path and the multi-GPU start depend on.
set -u
uname -r; nproc; free -g | head -2
for f in enabled shmem_enabled defrag; do echo "thp $f: $(cat /sys/kernel/mm/transparent_hugepage/$f 2>&1)"; done
mount | grep -E " /dev/shm | /tmp | / " ; df -h /dev/shm /tmp | tail -2
ls /proc/driver/nvidia/gpus 2>&1; nvidia-smi -L
cp --version | head -1
# The probes, built in BUILD (default /tmp/aesgpu-probes), which the CMake configure makes if need be.
build=${1:-/tmp/aesgpu-probes}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$(dirname "$0")/../../.." -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" --target probe_write_paths && "$build/bench/probe_write_paths" /dev/shm 4 8
cmake --build "$build" --target probe_cuda_start 2>/dev/null && "$build/bench/probe_cuda_start"
