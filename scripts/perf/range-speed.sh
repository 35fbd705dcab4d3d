#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What decrypt --range saves: 1 MiB read from the middle of a FILE_GIB GiB GCM file against the
# whole file decrypted (-t: every segment checked, nothing written), REPS rounds interleaved, each
# from a cold page cache (as root; else warm, and said so). Prints wall and CPU seconds per run
# (scripts/perf/measure.py) and the medians' ratio. DIR (default /var/tmp) holds the file.
# Usage: [FILE_GIB=16] [REPS=3] [DIR=/var/tmp] scripts/perf/range-speed.sh AESGPU_BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
aesgpu=${1:?usage: scripts/perf/range-speed.sh AESGPU_BINARY}
gib=${FILE_GIB:-16}
reps=${REPS:-3}
dir=$(mktemp -d "${DIR:-/var/tmp}/aesgpu-range-speed.XXXXXX")
trap 'rm -rf "$dir"' EXIT
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
head -c $((gib << 30)) /dev/zero | "$aesgpu" encrypt -q --mode gcm -K "$key" -o "$dir/c"
cold() {
  if [ "$(id -u)" = 0 ]; then sync && echo 3 > /proc/sys/vm/drop_caches; else echo "(warm cache: not root)"; fi
}
middle=$(((gib << 30) / 2))
declare -a range_walls full_walls
for ((rep = 1; rep <= reps; rep++)); do
  cold
  line=$(scripts/perf/measure.py sh -c "\"$aesgpu\" decrypt --mode gcm -K $key --range $middle:1M -c \"$dir/c\" > /dev/null")
  echo "round $rep  --range $middle:1M  $line"
  range_walls+=("$(echo "$line" | sed 's/wall=\([^ ]*\).*/\1/')")
  cold
  line=$(scripts/perf/measure.py "$aesgpu" decrypt --mode gcm -K "$key" -t "$dir/c")
  echo "round $rep  whole file (-t)  $line"
  full_walls+=("$(echo "$line" | sed 's/wall=\([^ ]*\).*/\1/')")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
r=$(median "${range_walls[@]}")
f=$(median "${full_walls[@]}")
awk -v r="$r" -v f="$f" -v g="$gib" 'BEGIN {printf "median: 1 MiB from the middle of %d GiB %.3f s, the whole file %.3f s: %.5fx its time\n", g, r, f, r / f}'
