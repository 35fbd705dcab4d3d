#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Probe: each lean-file-path change alone, 8 GiB file to new file on /dev/shm, interleaved, REPS
# runs each; medians of wall and CPU seconds. The AESGPU_EXPERIMENT_* switches it sets exist only
# in commit ce70263 ("EXPERIMENT: ..."): run it in a checkout of that commit. bench/NOTES.md has
# what it found (the reserving thread and the populating were taken out again).
set -uo pipefail
cd "$(dirname "$0")/../.."
STEPS=none scripts/gpu-check.sh /tmp/lean-ab >/dev/null 2>&1 || { echo "build failed"; exit 1; }
bin=/tmp/lean-ab/aesgpu
key=000102030405060708090a0b0c0d0e0f
openssl enc -aes-128-ctr -K $key -iv $key -in /dev/zero 2>/dev/null | head -c 8G > /dev/shm/ab-in
declare -A envs=(
  [new]=""
  [no-populate]="AESGPU_EXPERIMENT_NO_POPULATE=1"
  [reserve-all]="AESGPU_EXPERIMENT_RESERVE_ALL=1"
  [read-8]="AESGPU_EXPERIMENT_READ_THREADS=8"
  [old]="AESGPU_EXPERIMENT_NO_POPULATE=1 AESGPU_EXPERIMENT_RESERVE_ALL=1 AESGPU_EXPERIMENT_READ_THREADS=8"
)
order="new no-populate reserve-all read-8 old"
: > /tmp/ab-times
for ((rep = 0; rep < ${REPS:-5}; rep++)); do
  for backend in ${BACKENDS:-gpu cpu}; do
    for what in $order; do
      rm -f /dev/shm/ab-out
      echo "$backend $what $(env ${envs[$what]} python3 scripts/measure.py $bin encrypt -q --backend $backend -K $key /dev/shm/ab-in -o /dev/shm/ab-out)" >> /tmp/ab-times
    done
  done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for backend in ${BACKENDS:-gpu cpu}; do
  for what in $order; do
    runs=$(grep "^$backend $what wall=" /tmp/ab-times | tr '=' ' ')
    printf "%-4s %-12s median wall %6.3f s, CPU %6.2f s (user %5.2f, sys %5.2f)  (CPU, s:%s)\n" $backend $what \
      "$(awk '{ print $4 }' <<< "$runs" | median)" "$(awk '{ print $6 + $8 }' <<< "$runs" | median)" \
      "$(awk '{ print $6 }' <<< "$runs" | median)" "$(awk '{ print $8 }' <<< "$runs" | median)" \
      "$(awk '{ printf " %.1f", $6 + $8 }' <<< "$runs")"
  done
done
rm -f /dev/shm/ab-in /dev/shm/ab-out
