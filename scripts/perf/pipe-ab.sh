#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Before/after through a pipe: `cat FILE | aesgpu encrypt -q --backend B > /dev/null`, FILE_GIB GiB
# on /dev/shm, for several aesgpu binaries, REPS rounds with every binary and backend interleaved
# in each round, so that a drift of the machine falls on all of them alike. Prints, per binary and
# backend, the median wall and CPU seconds (cat's and aesgpu's user + system) and every run's wall.
# Each NAME=PATH is a built binary or a source tree (built here, the aesgpu target only, Release).
# Usage: [BACKENDS="cpu gpu"] [REPS=7] [FILE_GIB=8] [CUDA_ARCHS=90] scripts/perf/pipe-ab.sh NAME=PATH...
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { sed -n '3,8p' "$0"; exit 2; }
prefix_args=()
[ -d .deps ] && prefix_args=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
[ -n "${CUDA_ARCHS:-}" ] && prefix_args+=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
names=() builds=()
declare -A binary
for pair in "$@"; do
  name=${pair%%=*} path=${pair#*=}
  names+=("$name")
  if [ -f "$path" ] && [ -x "$path" ]; then binary[$name]=$path; continue; fi
  out=/tmp/pipe-ab-$name
  binary[$name]=$out/aesgpu
  (cmake -S "$path" -B "$out" -DCMAKE_BUILD_TYPE=Release -DAESGPU_BUILD_TESTS=OFF -DBUILD_TESTING=OFF \
    "${prefix_args[@]}" >/dev/null && cmake --build "$out" -j"$(( $(nproc) / 2 ))" --target aesgpu >/dev/null 2>&1 ||
    echo "pipe-ab: building $name from $path failed") &
  builds+=($!)
done
for pid in "${builds[@]}"; do wait "$pid"; done
for name in "${names[@]}"; do [ -x "${binary[$name]}" ] || exit 1; done
key=000102030405060708090a0b0c0d0e0f
input=/dev/shm/aesgpu-pipe-ab-in times=/dev/shm/aesgpu-pipe-ab-times
openssl enc -aes-128-ctr -K $key -iv $key -in /dev/zero 2>/dev/null | head -c "${FILE_GIB:-8}G" > "$input"
rm -f "$times"
echo "pipe A/B: ${FILE_GIB:-8} GiB, cat FILE | aesgpu encrypt -q --backend B -K ... > /dev/null, ${REPS:-7} rounds"
for ((rep = 0; rep < ${REPS:-7}; rep++)); do
  for backend in ${BACKENDS:-cpu gpu}; do
    for name in "${names[@]}"; do
      echo "$name-$backend $(python3 scripts/perf/measure.py sh -c \
        "cat $input | ${binary[$name]} encrypt -q --backend $backend -K $key > /dev/null" || echo failed)" >> "$times"
    done
  done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for backend in ${BACKENDS:-cpu gpu}; do
  for name in "${names[@]}"; do
    runs=$(grep "^$name-$backend wall=" "$times" | tr '=' ' ')
    printf "%-12s %-4s median wall %6.3f s, CPU %6.2f s  (wall, s:%s)\n" "$name" "$backend" \
      "$(awk '{ print $3 }' <<< "$runs" | median)" "$(awk '{ print $5 + $7 }' <<< "$runs" | median)" \
      "$(awk '{ printf " %s", $3 }' <<< "$runs")"
  done
done
status=0
grep -q failed "$times" && { echo "pipe-ab: a run failed"; status=1; }
rm -f "$input" "$times"
exit $status
