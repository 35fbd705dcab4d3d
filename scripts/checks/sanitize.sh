#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the whole suite with AddressSanitizer + UndefinedBehaviorSanitizer, then with
# ThreadSanitizer, and runs it under each, with the standard library's own checks on
# (_GLIBCXX_ASSERTIONS); any report fails the run. CPU only (the CUDA runtime
# does not run under the sanitizers' memory layout; GPU code is checked by compute-sanitizer in
# scripts/gpu/gpu-check.sh). Usage: scripts/checks/sanitize.sh [address|thread ...] (default: both).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh
kinds=("$@")
[ ${#kinds[@]} -eq 0 ] && kinds=(address thread)
for kind in "${kinds[@]}"; do
  case $kind in
    address) sanitize="address;undefined" ;;
    thread) sanitize="thread" ;;
    *) echo "unknown sanitizer set '$kind' (address or thread)" >&2; exit 2 ;;
  esac
  build="build-sanitize-$kind"
  echo "== $sanitize ($build)"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAESGPU_ENABLE_CUDA=OFF -DBUILD_TESTING=ON \
    "-DAESGPU_SANITIZE=$sanitize" >/dev/null
  cmake --build "$build" -j"$(nproc)" 2>&1 | grep -E "warning|error" || true
  # allocator_may_return_null: the tests ask for rings too big for memory on purpose.
  # Tests that limit the address space (ulimit -v) skip themselves: shadow memory needs terabytes.
  ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:verify_asan_link_order=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  TSAN_OPTIONS=halt_on_error=1:allocator_may_return_null=1 \
  AESGPU_TEST_UNDER_SANITIZER=$kind \
    ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 900
done
