#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the dependencies, builds aesgpu, then encrypts and decrypts a generated sample file
# (SIZE_MIB, default 1024) with a fresh random key, and prints each step's rate beside the rate at
# which cp copies the same file on the same disk, in the same run: no file-to-file tool goes faster
# than that. Every step starts with the disk idle (sync) and is timed until its output is on the
# disk, so the figures are aesgpu's and not the page cache's writeback of the step before.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target aesgpu >/dev/null

size_mib=${SIZE_MIB:-1024}
work=$(mktemp -d "${TMPDIR:-/tmp}/aesgpu-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT
(umask 077; head -c 32 /dev/urandom > "$work/demo.key")
head -c "$((size_mib << 20))" /dev/urandom > "$work/sample.bin"

# seconds STEP...: runs STEP after a sync and prints how long it took until its output was on the disk.
seconds() {
    sync
    local start end
    start=$(date +%s.%N)
    "$@"
    sync
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}
rate() { awk -v mib="$size_mib" -v s="$1" 'BEGIN { printf "%.0f MiB/s", mib / s }'; }

build/aesgpu info
echo
copy=$(seconds cp "$work/sample.bin" "$work/copy.bin")
rm -f "$work/copy.bin"
encrypt=$(seconds build/aesgpu encrypt -q --key-file "$work/demo.key" "$work/sample.bin")
decrypt=$(seconds build/aesgpu decrypt -q --mode ecb --key-file "$work/demo.key" "$work/sample.bin.aes" -o "$work/sample.out")
cmp "$work/sample.bin" "$work/sample.out"
echo "cp of the ${size_mib} MiB sample: ${copy} s ($(rate "$copy")): this disk's copy rate, the ceiling of any file-to-file tool"
echo "aesgpu encrypt (AES-256-ECB): ${encrypt} s ($(rate "$encrypt")), $(awk -v c="$copy" -v t="$encrypt" 'BEGIN { printf "%.0f", 100 * c / t }')% of cp's rate"
echo "aesgpu decrypt: ${decrypt} s ($(rate "$decrypt")), $(awk -v c="$copy" -v t="$decrypt" 'BEGIN { printf "%.0f", 100 * c / t }')% of cp's rate; the round trip is identical"
