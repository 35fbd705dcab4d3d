#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The build's switches do what docs/packaging.md says, each checked by a configure in a scratch directory
# with nvcc hidden from PATH: AESGPU_ENABLE_CUDA=ON fails clearly without it, AUTO builds the CPU
# backend alone, a bad value is refused, and BUILD_TESTING=OFF leaves the tests out; likewise
# AESGPU_IO_URING (OFF, a bad value, ON with or without liburing).
# Usage: check-build-switches.sh [CMAKE] (the cmake to run, by default the one on PATH; ctest
# passes the one that configured the build, which need not be in /usr/bin or /bin).
# Run by ctest (Build.SwitchesDoWhatTheySay).
set -uo pipefail
cmake_command=$(command -v "${1:-cmake}") || { echo "no cmake"; exit 1; }
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
configure() { # NAME ARGS...: configure without nvcc on PATH; output in $scratch/NAME.log
  local name=$1
  shift
  env -u CUDACXX PATH=/usr/bin:/bin "$cmake_command" -S "$source_dir" -B "$scratch/$name" "$@" >"$scratch/$name.log" 2>&1
}
expect() { # what, condition
  if eval "$2"; then echo "ok: $1"; else echo "FAILED: $1"; status=1; fi
}
if env PATH=/usr/bin:/bin sh -c 'command -v nvcc' >/dev/null; then
  # A distribution's CUDA package puts nvcc in /usr/bin, where it cannot be hidden this way.
  echo "skipped: nvcc is in /usr/bin, so a build without it cannot be tried here"
else
  configure on -DAESGPU_ENABLE_CUDA=ON -DBUILD_TESTING=OFF
  expect "ON without nvcc fails" "[ $? -ne 0 ]"
  expect "ON without nvcc says why" "grep -q 'AESGPU_ENABLE_CUDA=ON, but no working CUDA compiler' '$scratch/on.log'"
  configure auto -DBUILD_TESTING=OFF
  expect "AUTO without nvcc configures" "[ $? -eq 0 ]"
  expect "AUTO without nvcc builds the CPU backend alone" "grep -q 'aesgpu: CUDA backend OFF' '$scratch/auto.log'"
fi
configure notests -DAESGPU_ENABLE_CUDA=OFF -DBUILD_TESTING=OFF
expect "BUILD_TESTING=OFF leaves the tests out" "[ $? -eq 0 ] && [ ! -e '$scratch/notests/tests' ]"
configure bad -DAESGPU_ENABLE_CUDA=maybe -DBUILD_TESTING=OFF
expect "a bad AESGPU_ENABLE_CUDA is refused" "[ $? -ne 0 ] && grep -q 'must be AUTO, ON or OFF' '$scratch/bad.log'"
configure nouring -DAESGPU_ENABLE_CUDA=OFF -DAESGPU_IO_URING=OFF -DBUILD_TESTING=OFF
expect "AESGPU_IO_URING=OFF builds without io_uring" "[ $? -eq 0 ] && grep -q 'aesgpu: io_uring OFF' '$scratch/nouring.log'"
configure baduring -DAESGPU_ENABLE_CUDA=OFF -DAESGPU_IO_URING=maybe -DBUILD_TESTING=OFF
expect "a bad AESGPU_IO_URING is refused" "[ $? -ne 0 ] && grep -q 'AESGPU_IO_URING must be AUTO, ON or OFF' '$scratch/baduring.log'"
if [ -e /usr/include/liburing.h ]; then
  configure uring -DAESGPU_ENABLE_CUDA=OFF -DAESGPU_IO_URING=ON -DBUILD_TESTING=OFF
  expect "AESGPU_IO_URING=ON with liburing builds it in" "[ $? -eq 0 ] && grep -q 'aesgpu: io_uring ON' '$scratch/uring.log'"
else
  configure uring -DAESGPU_ENABLE_CUDA=OFF -DAESGPU_IO_URING=ON -DBUILD_TESTING=OFF
  expect "AESGPU_IO_URING=ON without liburing says why" "[ $? -ne 0 ] && grep -q 'install liburing-dev' '$scratch/uring.log'"
fi
exit $status
