#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a folder includes a folder it may not depend on: dependencies point one way
# (docs/layout.md). A folder's subfolders are its own (aes_gpu/kernels is aes_gpu's).
# Run by ctest (Layers.IncludesPointOneWay).
set -euo pipefail
cd "$(dirname "$0")/../.."
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
  [api]="job engine format keys aes_cpu aes_gpu cipher common io"
  [bench]="aes_cpu aes_gpu engine job format cipher common io keys"
  [app]="aes_cpu aes_gpu engine job format bench cipher common io keys"
  # The Python package (import aesgpu) stands on the public library alone: <aesgpu/...>.
  [python]=""
)
# Folders of sources outside the layers: the tests, the example that links the installed
# library, the public headers (checked below), the host probes of scripts/perf/.
outside_layers="tests examples include scripts"
# True when folder $2 is $1 or inside it.
within() { [[ "$2" == "$1" || "$2" == "$1"/* ]]; }
status=0
# Every top-level folder with C++ or CUDA sources is a layer above, or outside them by name.
while read -r folder; do
  [[ -v "allowed[$folder]" || " $outside_layers " == *" $folder "* ]] && continue
  echo "$folder/ holds sources but has no place in the layers: name it in scripts/checks/check-layers.sh"
  status=1
done < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' 2>/dev/null | while read -r file; do [ -e "$file" ] && echo "$file"; done |
         sed -n 's#^\([^/]*\)/.*#\1#p' | sort -u)
for folder in "${!allowed[@]}"; do
  [ -d "$folder" ] || continue
  while read -r file; do
    while read -r included; do
      within "$folder" "$included" && continue
      ok=0
      for neighbour in ${allowed[$folder]}; do within "$neighbour" "$included" && ok=1; done
      if [ $ok = 0 ]; then
        echo "$file includes $included/, which $folder/ may not depend on"
        status=1
      fi
    done < <(sed -n 's/^#include "\([a-z_/]*\)\/[a-z_0-9]*\.[a-z]*".*/\1/p' "$file" | sort -u)
  done < <(find "$folder" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \))
done
# Kernels are device code: they include other kernels and the key schedule they are given, not
# the backend that launches them (CUDA's runtime API, its owners, the host ring).
while read -r hit; do
  echo "$hit: aes_gpu/kernels/ includes only kernels and aes_gpu/key_schedule.hpp"
  status=1
done < <(grep -n -E '^#include "' aes_gpu/kernels/* |
         grep -v -E '#include "aes_gpu/(kernels/[a-z_]+\.(cuh|hpp)|key_schedule\.hpp)"' || true)
# The public headers stand alone: they include each other and the standard library, nothing of
# the tree (a program that links the library has only include/aesgpu/).
while read -r line; do
  echo "include/aesgpu: $line: a public header includes only <aesgpu/...> and the standard library"
  status=1
done < <(grep -n -E '^#include' include/aesgpu/*.hpp | grep -v -E '#include <(aesgpu/[a-z_]+\.hpp|[a-z_]+)>' || true)
# Below app/ nothing speaks to the user: no spdlog, no CLI11, no fmt (the library links none of
# them); what a caller may want to hear goes to a NoteSink.
while read -r file; do
  echo "$file includes spdlog, CLI11 or fmt: below app/ a warning goes to a NoteSink, and the caller says it"
  status=1
done < <(grep -rl -E '#include <(spdlog|CLI|fmt)/' common cipher io keys format engine job api bench aes_cpu aes_gpu || true)
# Below app/ a message names a setting, not a command-line flag (long, or short as " -f"), and
# nothing throws UsageError (an exit status is the app's to choose: app/exit_status maps the
# library's errors). Other tools' flags in advice (ulimit -v, openssl enc -a, cp --reflink) pass.
while read -r hit; do
  echo "$hit: a flag or UsageError below app/: name the setting, and let app/ say the flag"
  status=1
done < <(grep -rn -E '"[^"]*(--[a-z][a-z-]+|-[a-zA-Z]/--| -[a-zA-Z]([ ",;)]|$))|throw UsageError' common cipher io keys \
           format engine job api bench aes_cpu aes_gpu --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' |
         grep -v -E '^[^:]+:[0-9]+:[[:space:]]*//' | grep -v -E '^bench/scratch\.cpp:.*"cp", "--reflink' |
         grep -v -E 'ulimit -[a-z]|openssl enc -[a-z]' || true)
# io/ is files and streams: no OpenSSL, no CUDA.
if grep -l -E '#include <(openssl|cuda)' io/* 2>/dev/null; then echo "io/ includes OpenSSL or CUDA"; status=1; fi
if grep -E '^[^#]*(OpenSSL|CUDA)' io/CMakeLists.txt; then echo "io/CMakeLists.txt links OpenSSL or CUDA"; status=1; fi
exit $status
