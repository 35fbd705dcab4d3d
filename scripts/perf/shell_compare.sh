#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Wall time of aesgpu against the shell tools a user would otherwise reach for, on one file:
#   cp F G | aesgpu encrypt F -o G | openssl enc -in F -out G      (file to file)
#   cat F | cat > G | cat F | aesgpu encrypt | cat > G              (through pipes)
# Each command runs REPS times, interleaved, and the median is reported with its ratio to the
# baseline of its group. Usage: scripts/perf/shell_compare.sh [FILE_SIZE_MIB] [REPS] [aesgpu args...]
# Put the file on tmpfs (default /dev/shm) to measure the tools rather than the disk.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mib=${1:-2048}
reps=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
extra=("$@")
dir=${BENCH_DIR:-/dev/shm}
aesgpu=${AESGPU:-build/aesgpu}
key=000102030405060708090a0b0c0d0e0f
input="$dir/aesgpu-bench-in"
output="$dir/aesgpu-bench-out"
trap 'rm -f "$input" "$output"' EXIT
head -c "$((size_mib << 20))" /dev/urandom > "$input"

names=("cp" "aesgpu encrypt ${extra[*]}" "openssl enc -aes-128-ecb" "cat | cat" "cat | aesgpu encrypt ${extra[*]} | cat")
commands=(
  "cp '$input' '$output'"
  "'$aesgpu' encrypt -q -K $key ${extra[*]} '$input' -o '$output'"
  "openssl enc -aes-128-ecb -K $key -in '$input' -out '$output'"
  "cat '$input' | cat > '$output'"
  "cat '$input' | '$aesgpu' encrypt -q -K $key ${extra[*]} | cat > '$output'"
)
declare -A times
for ((rep = 0; rep < reps; rep++)); do
  for i in "${!commands[@]}"; do
    rm -f "$output"
    sync
    start=$(date +%s%N)
    bash -c "${commands[$i]}"
    end=$(date +%s%N)
    times[$i]+="$(( (end - start) / 1000 )) "
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%s MiB file in %s, %s runs each, %s, %s cores\n' "$size_mib" "$dir" "$reps" "$(uname -m)" "$(nproc)"
printf '%-44s %10s %10s %s\n' "command" "median s" "GB/s" "ratio"
for i in "${!commands[@]}"; do
  m=$(echo "${times[$i]}" | median)
  base=$(( i < 3 ? 0 : 3 ))
  b=$(echo "${times[$base]}" | median)
  awk -v n="${names[$i]}" -v m="$m" -v b="$b" -v bytes="$((size_mib << 20))" -v bn="${names[$base]}" \
    'BEGIN {printf "%-44s %10.3f %10.2f %.2fx %s\n", n, m/1e6, bytes/(m/1e6)/1e9, m/b, bn}'
done
