#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a source file, script or CMake file tracked by git lacks its SPDX licence line
# (LICENSE: Apache-2.0). Run by ctest (Sources.CarryTheirLicence).
set -euo pipefail
cd "$(dirname "$0")/../.."
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: nothing to check"; exit 77; }
missing=$(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.sh' '*.py' 'CMakeLists.txt' '*/CMakeLists.txt' '*.cmake' '*.awk' '*.scd' 'completions/*' '.ci/run' |
  while read -r file; do [ -e "$file" ] || continue; [ "$(head -3 "$file" | grep -c 'SPDX-License-Identifier: Apache-2.0')" = 1 ] || echo "$file"; done)
[ -z "$missing" ] || { echo "no SPDX-License-Identifier line in:"; echo "$missing"; exit 1; }
