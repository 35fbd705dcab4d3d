#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On a host with several GPUs: how the pipeline grows with the GPU count, and where it stops.
#   topology  nvidia-smi topo -m, the GPUs, the CPUs' NUMA nodes, memory
#   bench     aesgpu bench --backend all --size SIZE --mode all --direction encrypt: every ceiling,
#             the pipeline through one GPU, through all, and all of them with the CPU
#   subsets   aesgpu bench --backend gpu --devices LIST for 1, 2, 4, 8 ... GPUs, each count once
#             "near" (GPUs of GPU 0's NUMA node first, then the next node's) and once "spread"
#             (one GPU from each node in turn): the GPUs' two-way copy ceiling together, the
#             pipeline through them, and them with the CPU, each in GB/s of plaintext
#   files     a FILE_GIB GiB file on DISK_DIR (from a cold cache, durable at the end: --sync) and
#             on /dev/shm, encrypted with --backend gpu and auto: wall, CPU s/GiB (scripts/
#             measure.py), median of REPS; then once with -v for the bytes each lane took
# Usage: [STEPS="topology bench subsets files"] [SIZE=4G] [REPS=3] [FILE_REPS=REPS] [FILE_GIB=8] [DISK_DIR=/var/tmp]
#        scripts/gpu/gpu-scaling.sh BUILD_DIR      (BUILD_DIR holds a built aesgpu)
# nvidia-smi numbers the GPUs in PCI bus order, and so does CUDA here (CUDA_DEVICE_ORDER): the
# subsets' numbers are the ones --devices takes. CUDA_VISIBLE_DEVICES would renumber them, so it
# must not be set.
set -uo pipefail
build=$(realpath "${1:?usage: scripts/gpu/gpu-scaling.sh BUILD_DIR}")
disk_dir=$(realpath "${DISK_DIR:-/var/tmp}")
cd "$(dirname "$0")/../.."
aesgpu=$build/aesgpu
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  echo "gpu-scaling: CUDA_VISIBLE_DEVICES renumbers the GPUs that nvidia-smi names: unset it" >&2
  exit 2
fi
export CUDA_DEVICE_ORDER=PCI_BUS_ID
steps=${STEPS:-topology bench subsets files}
size=${SIZE:-4G}
reps=${REPS:-3}
key=000102030405060708090a0b0c0d0e0f
status=0
step() { echo; echo "== $*"; }
wanted() { [[ " $steps " == *" $1 "* ]]; }
random_file() { openssl enc -aes-128-ctr -K $key -iv $key -in /dev/zero 2>/dev/null | head -c "$2" > "$1"; }
gpus=$(nvidia-smi -L | grep -c '^GPU ')

if wanted topology; then
  step "topology: $gpus GPUs"
  nvidia-smi -L
  nvidia-smi topo -m
  lscpu | grep -E '^(Model name|CPU\(s\)|Socket|NUMA)'
  free -g | head -2
fi

if wanted bench; then
  step "aesgpu bench --backend all --size $size --mode all --direction encrypt --reps $reps --key-bits 128"
  "$aesgpu" bench --backend all --size "$size" --mode all --direction encrypt --reps "$reps" --key-bits 128 ||
    status=1
fi

if wanted subsets; then
  step "subsets of the GPUs by NUMA node (nvidia-smi topo -m), --size $size, ECB encrypt, AES-128"
  # "count placement list" lines from the NUMA Affinity column.
  subsets=$(mktemp) json=$(mktemp)
  nvidia-smi topo -m | python3 scripts/gpu/gpu-subsets.py "$gpus" > "$subsets" || status=1
  printf "%-5s %-7s %-16s %14s %14s %8s %14s\n" GPUs placing devices "ceiling GB/s" "pipeline GB/s" "of it" "with CPU GB/s"
  while read -r count placing list; do
    if ! "$aesgpu" bench --backend gpu --devices "$list" --size "$size" --mode ecb --key-bits 128 \
      --direction encrypt --reps "$reps" --json > "$json"; then
      printf "%-5s %-7s %-16s failed\n" "$count" "$placing" "$list"
      status=1
      continue
    fi
    python3 - "$json" "$count" "$placing" "$list" <<'EOF' || status=1
import json, sys
report = json.load(open(sys.argv[1]))
count = int(sys.argv[2])
rows = report["results"]
def pick(stage, backend, test):
    found = [r for r in rows if r["stage"] == stage and r["backend"] == backend and test(r["what"])]
    if not found:
        sys.exit(f"gpu-scaling: no {backend} {stage} row for {count} GPUs ({sys.argv[4]})")
    return found[0]
several = count > 1
ceiling = pick("ceiling", "gpu", lambda w: w.startswith("pinned H2D+D2H at once") and ("GPUs" in w) == several)
pipeline = pick("pipeline", "gpu", lambda w: ("GPUs" in w) == several)
together = pick("pipeline", "all", lambda w: True)
half = ceiling["gbps"] / 2  # plaintext each way
print(f"{count:<5} {sys.argv[3]:<7} {sys.argv[4]:<16} {half:14.2f} {pipeline['gbps']:14.2f} "
      f"{100 * pipeline['gbps'] / half:7.0f}% {together['gbps']:14.2f}")
EOF
  done < "$subsets"
  rm -f "$subsets" "$json"
fi

if wanted files; then
  gib=${FILE_GIB:-8}
  median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
  # Dropping the page cache needs root; without it the disk's runs may read from memory.
  cold="cold cache where it is a disk"
  [ "$(id -u)" = 0 ] || cold="NOT from a cold cache (not root)"
  drop_caches() { sync; [ "$(id -u)" != 0 ] || echo 3 > /proc/sys/vm/drop_caches || status=1; }
  for dir in "$disk_dir" /dev/shm; do
    step "files: $gib GiB on $dir ($(findmnt -no FSTYPE,SOURCE --target "$dir" | tail -1)), ECB encrypt, AES-128, durable (--sync); $cold"
    work=$dir/aesgpu-scaling
    mkdir -p "$work" && rm -f "$work"/*
    random_file "$work/in" "${gib}G"
    : > "$work/times"
    for ((rep = 0; rep < ${FILE_REPS:-$reps}; rep++)); do
      for backend in gpu auto; do
        rm -f "$work/out"
        drop_caches
        # A failed run's times stay out of the medians.
        if cost=$(python3 scripts/perf/measure.py "$aesgpu" encrypt -q --sync --mode ecb --backend $backend -K $key \
          "$work/in" -o "$work/out"); then
          echo "$backend $cost" >> "$work/times"
        else
          echo "$backend run failed" && status=1
        fi
      done
    done
    for backend in gpu auto; do
      runs=$(grep "^$backend wall=" "$work/times" | tr '=' ' ')
      [ -n "$runs" ] || { echo "$backend: no run succeeded"; continue; }
      printf "%-5s median wall %6.2f s, %6.2f GB/s, CPU %5.2f s/GiB (walls:%s)\n" "$backend" \
        "$(awk '{ print $3 }' <<< "$runs" | median)" \
        "$(awk -v g="$gib" '{ print g * 1.073741824 / $3 }' <<< "$runs" | median)" \
        "$(awk -v g="$gib" '{ print ($5 + $7) / g }' <<< "$runs" | median)" "$(awk '{ printf " %s", $3 }' <<< "$runs")"
    done
    for backend in gpu auto; do
      rm -f "$work/out"
      drop_caches
      echo "-- $backend -v:"
      "$aesgpu" encrypt -v --sync --mode ecb --backend $backend -K $key "$work/in" -o "$work/out" 2>&1 |
        grep -vi warning || status=1
    done
    rm -rf "$work"
  done
fi
exit $status
