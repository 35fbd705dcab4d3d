#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The complexity gate reads CUDA sources: a kernel of complexity 21 planted in a .cu file, and one
# in a .cuh, each fail it by name; a kernel of complexity 15 passes. Skips (77) where no lizard
# can be had (a host without network and without .venv-lint).
# Usage: complexity_gate_test.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
python=${LIZARD_PYTHON:-python3}
"$python" -c 'import lizard' 2>/dev/null || python=$source_dir/.venv-lint/bin/python
"$python" -c 'import lizard' 2>/dev/null || { echo "no lizard here: skipped"; exit 77; }
export LIZARD_PYTHON=$python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A kernel with `branches` ifs: complexity branches + 1.
kernel() {
  echo "__global__ void $1(const int *in, int *out) {"
  echo "    int sum = 0;"
  for ((i = 0; i < $2; ++i)); do echo "    if (in[$i] > $i) sum += in[$i];"; done
  echo "    out[threadIdx.x] = sum;"
  echo "}"
}
status=0
mkdir "$work/cu" "$work/cuh" "$work/fine"
kernel tangled_kernel 20 > "$work/cu/planted.cu"
kernel tangled_header_kernel 20 > "$work/cuh/planted.cuh"
kernel plain_kernel 14 > "$work/fine/plain.cu"
for planted in cu:tangled_kernel cuh:tangled_header_kernel; do
  folder=${planted%%:*} name=${planted#*:}
  output=$("$source_dir/scripts/checks/check-complexity.sh" "$work/$folder" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] || ! grep -q "$name has .* 21 CCN" <<<"$output"; then
    echo "FAIL: the gate passed a .$folder function of complexity 21 (exit $rc): $output"
    status=1
  fi
done
if ! output=$("$source_dir/scripts/checks/check-complexity.sh" "$work/fine" 2>&1); then
  echo "FAIL: the gate failed a .cu function of complexity 15: $output"
  status=1
fi
[ $status -eq 0 ] && echo "the gate fails .cu and .cuh functions of complexity 21 and passes one of 15"
exit $status
