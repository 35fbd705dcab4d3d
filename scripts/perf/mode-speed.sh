#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How fast each mode decrypts the same data on each backend: a FILE_GIB GiB file on /dev/shm (the
# page cache: the engine's speed, not a disk's) is encrypted once per mode (MODES, default
# "ecb ctr cbc"; CBC's encryption is serial, on one CPU thread), then every mode is decrypted with
# every backend (BACKENDS, default "gpu all"), REPS rounds interleaved, to /dev/shm. Each run prints
# wall, user and system seconds (scripts/perf/measure.py) and GB/s; the last lines give each mode's
# median against ECB's on the same backend, measured in the same rounds.
# Usage: [FILE_GIB=4] [REPS=3] [MODES="ecb ctr cbc"] [BACKENDS="gpu all"] scripts/perf/mode-speed.sh AESGPU_BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
aesgpu=${1:?usage: scripts/perf/mode-speed.sh AESGPU_BINARY}
gib=${FILE_GIB:-4}
reps=${REPS:-3}
modes=${MODES:-ecb ctr cbc}
backends=${BACKENDS:-gpu all}
dir=$(mktemp -d /dev/shm/aesgpu-mode-speed.XXXXXX)
trap 'rm -rf "$dir"' EXIT
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv=0f0e0d0c0b0a09080706050403020100
head -c $((gib << 30)) /dev/urandom > "$dir/plain"
iv_of() { [ "$1" = ecb ] || echo "--iv $iv"; }
for mode in $modes; do
  # shellcheck disable=SC2046 # the IV's two words, or none
  "$aesgpu" encrypt -q --mode "$mode" -K "$key" $(iv_of "$mode") "$dir/plain" -o "$dir/$mode"
done
rm -f "$dir/plain"
declare -A walls
for ((rep = 1; rep <= reps; rep++)); do
  for backend in $backends; do
    for mode in $modes; do
      # shellcheck disable=SC2046
      line=$(scripts/perf/measure.py "$aesgpu" decrypt -q -f --mode "$mode" --backend "$backend" -K "$key" \
        $(iv_of "$mode") "$dir/$mode" -o "$dir/out")
      wall=${line#wall=}
      wall=${wall%% *}
      walls[$backend.$mode]+="$wall "
      printf 'round %d  %-4s decrypt --backend %-4s %s  %.2f GB/s\n' "$rep" "$mode" "$backend" "$line" \
        "$(awk -v g="$gib" -v w="$wall" 'BEGIN {print g * 1.073741824 / w}')"
    done
  done
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for backend in $backends; do
  base=$(echo "${walls[$backend.ecb]:-}" | median)
  for mode in $modes; do
    wall=$(echo "${walls[$backend.$mode]}" | median)
    printf 'median  %-4s decrypt --backend %-4s %.3f s  %.2f GB/s%s\n' "$mode" "$backend" "$wall" \
      "$(awk -v g="$gib" -v w="$wall" 'BEGIN {print g * 1.073741824 / w}')" \
      "$([ -n "$base" ] && printf ', %.2fx ECB'"'"'s time' "$(awk -v w="$wall" -v b="$base" 'BEGIN {print w / b}')")"
  done
done
