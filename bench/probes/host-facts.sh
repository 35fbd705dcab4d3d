#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Probe: the facts about a GPU host that the file path and the multi-GPU start depend on.
set -u
uname -r; nproc; free -g | head -2
for f in enabled shmem_enabled defrag; do echo "thp $f: $(cat /sys/kernel/mm/transparent_hugepage/$f 2>&1)"; done
mount | grep -E " /dev/shm | /tmp | / " ; df -h /dev/shm /tmp | tail -2
ls /proc/driver/nvidia/gpus 2>&1; nvidia-smi -L
cp --version | head -1
g++ -O2 -std=c++20 -pthread bench/probes/write_paths.cpp -o /tmp/write-paths && /tmp/write-paths /dev/shm 4 8
g++ -O2 -std=c++20 bench/probes/cuda_start.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudart -o /tmp/cuda-start && /tmp/cuda-start
