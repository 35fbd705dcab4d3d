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
#        scripts/gpu-scaling.sh BUILD_DIR      (BUILD_DIR holds a built aesgpu)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/gpu-scaling.sh BUILD_DIR}
aesgpu=$build/aesgpu
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
  nvidia-smi topo -m | python3 scripts/gpu-subsets.py "$gpus" > /tmp/aesgpu-subsets || status=1
  printf "%-5s %-7s %-16s %14s %14s %8s %14s\n" GPUs placing devices "ceiling GB/s" "pipeline GB/s" "of it" "with CPU GB/s"
  while read -r count placing list; do
    json=/tmp/aesgpu-subset.json
    if ! "$aesgpu" bench --backend gpu --devices "$list" --size "$size" --mode ecb --key-bits 128 \
      --direction encrypt --reps "$reps" --json > "$json"; then
      status=1
      continue
    fi
    python3 - "$json" "$count" "$placing" "$list" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
count = int(sys.argv[2])
rows = report["results"]
def pick(stage, backend, test):
    found = [r for r in rows if r["stage"] == stage and r["backend"] == backend and test(r["what"])]
    return found[0] if found else None
several = count > 1
ceiling = pick("ceiling", "gpu", lambda w: w.startswith("pinned H2D+D2H at once") and ("GPUs" in w) == several)
pipeline = pick("pipeline", "gpu", lambda w: ("GPUs" in w) == several)
together = pick("pipeline", "all", lambda w: True)
half = ceiling["gbps"] / 2 if ceiling else 0  # plaintext each way
print(f"{count:<5} {sys.argv[3]:<7} {sys.argv[4]:<16} {half:14.2f} {pipeline['gbps'] if pipeline else 0:14.2f} "
      f"{(100 * pipeline['gbps'] / half) if pipeline and half else 0:7.0f}% {together['gbps'] if together else 0:14.2f}")
EOF
  done < /tmp/aesgpu-subsets
  rm -f /tmp/aesgpu-subsets /tmp/aesgpu-subset.json
fi

if wanted files; then
  gib=${FILE_GIB:-8}
  median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  for dir in "${DISK_DIR:-/var/tmp}" /dev/shm; do
    step "files: $gib GiB on $dir ($(findmnt -no FSTYPE,SOURCE --target "$dir")), ECB encrypt, AES-128, durable (--sync); cold cache where it is a disk"
    work=$dir/aesgpu-scaling
    mkdir -p "$work" && rm -f "$work"/*
    random_file "$work/in" "${gib}G"
    : > "$work/times"
    for ((rep = 0; rep < ${FILE_REPS:-$reps}; rep++)); do
      for backend in gpu auto; do
        rm -f "$work/out"; sync
        [ "$(id -u)" = 0 ] && echo 3 > /proc/sys/vm/drop_caches
        echo "$backend $(python3 scripts/measure.py "$aesgpu" encrypt -q --sync --mode ecb --backend $backend -K $key \
          "$work/in" -o "$work/out" || echo failed)" >> "$work/times"
      done
    done
    grep -q failed "$work/times" && status=1
    for backend in gpu auto; do
      runs=$(grep "^$backend wall=" "$work/times" | tr '=' ' ')
      printf "%-5s median wall %6.2f s, %6.2f GB/s, CPU %5.2f s/GiB (walls:%s)\n" "$backend" \
        "$(awk '{ print $3 }' <<< "$runs" | median)" \
        "$(awk -v g="$gib" '{ print g * 1.073741824 / $3 }' <<< "$runs" | median)" \
        "$(awk -v g="$gib" '{ print ($5 + $7) / g }' <<< "$runs" | median)" "$(awk '{ printf " %s", $3 }' <<< "$runs")"
    done
    for backend in gpu auto; do
      rm -f "$work/out"; sync
      [ "$(id -u)" = 0 ] && echo 3 > /proc/sys/vm/drop_caches
      echo "-- $backend -v:"
      "$aesgpu" encrypt -v --sync --mode ecb --backend $backend -K $key "$work/in" -o "$work/out" 2>&1 |
        grep -vi warning || status=1
    done
    rm -rf "$work"
  done
fi
exit $status
