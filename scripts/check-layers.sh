#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a folder includes a folder it may not depend on: dependencies point one way
# (README, Layout). Run by ctest (Layers.IncludesPointOneWay).
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A allowed=(
  [common]=""
  [cipher]="common"
  [io]="cipher common"
  [keys]="cipher common io"
  [format]="keys cipher common io"
  [aes_cpu]="cipher common"
  [aes_gpu]="cipher common"
  [engine]="aes_cpu aes_gpu cipher common io"
  [job]="engine format keys cipher common io"
  [bench]="aes_cpu aes_gpu engine job format cipher common io keys"
  [app]="aes_cpu aes_gpu engine job format bench cipher common io keys"
)
status=0
for folder in "${!allowed[@]}"; do
  for file in "$folder"/*.hpp "$folder"/*.cpp "$folder"/*.cu "$folder"/*.cuh; do
    [ -e "$file" ] || continue
    while read -r included; do
      [ "$included" = "$folder" ] && continue
      if [[ " ${allowed[$folder]} " != *" $included "* ]]; then
        echo "$file includes $included/, which $folder/ may not depend on"
        status=1
      fi
    done < <(sed -n 's/^#include "\([a-z_]*\)\/.*/\1/p' "$file" | sort -u)
  done
done
# io/ is files and streams: no OpenSSL, no CUDA.
if grep -l -E '#include <(openssl|cuda)' io/* 2>/dev/null; then echo "io/ includes OpenSSL or CUDA"; status=1; fi
if grep -E '^[^#]*(OpenSSL|CUDA)' io/CMakeLists.txt; then echo "io/CMakeLists.txt links OpenSSL or CUDA"; status=1; fi
exit $status
