#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The library as another program gets it: `cmake --install BUILD_DIR --component dev` into a
# stage (the headers, libaesgpu.a, the CMake package and aesgpu.pc, and nothing of the command),
# then examples/encrypt_file.cpp built against it twice, through find_package(aesgpu) and through
# pkg-config, and its output compared with the aesgpu command's: ECB and CTR byte for byte, GCM
# decrypted by the command. Run by ctest (Build.ExampleLinksTheInstalledLibrary).
set -euo pipefail
build=$(cd "${1:?usage: check-example.sh BUILD_DIR}" && pwd)
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
aesgpu=$build/aesgpu
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A sanitized build's archive needs the sanitizers' runtime in the program too.
sanitize=$(sed -n 's/^AESGPU_SANITIZE:STRING=//p' "$build/CMakeCache.txt" | tr ';' ',')
flags=${sanitize:+-fsanitize=$sanitize}

prefix=$stage/prefix
cmake --install "$build" --component dev --prefix "$prefix" >/dev/null || fail "cmake --install --component dev"
[ -f "$prefix/include/aesgpu/aesgpu.hpp" ] || fail "no include/aesgpu/aesgpu.hpp in the dev component"
archive=$(find "$prefix" -name libaesgpu.a | head -1)
[ -n "$archive" ] || fail "no libaesgpu.a in the dev component"
[ ! -e "$prefix/bin" ] || fail "the dev component installed $(ls "$prefix/bin"): the command is the cli component's"
pc_dir=$(dirname "$(find "$prefix" -name aesgpu.pc | head -1)")
[ -f "$pc_dir/aesgpu.pc" ] || fail "no aesgpu.pc in the dev component"
echo "ok: the dev component holds $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"

cmake -S "$source_dir/examples" -B "$stage/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$stage/log" 2>&1 ||
    { cat "$stage/log"; fail "configuring examples/ with find_package(aesgpu)"; }
cmake --build "$stage/cmake" >"$stage/log" 2>&1 || { cat "$stage/log"; fail "building examples/ with CMake"; }
programs=("$stage/cmake/encrypt_file")
if command -v pkg-config >/dev/null; then
    # shellcheck disable=SC2046 # pkg-config's output is words
    c++ -std=c++20 $flags -o "$stage/encrypt_file_pc" "$source_dir/examples/encrypt_file.cpp" \
        $(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs aesgpu) >"$stage/log" 2>&1 ||
        { cat "$stage/log"; fail "building examples/encrypt_file.cpp with pkg-config"; }
    programs+=("$stage/encrypt_file_pc")
else
    echo "note: pkg-config is not installed here: aesgpu.pc is not tried"
fi
echo "ok: examples/encrypt_file.cpp builds: ${programs[*]##*/}"

data=$stage/data
head -c 3000007 /dev/urandom >"$data"
key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
iv=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
"$aesgpu" encrypt -q -K "$key" "$data" -o "$stage/cli.ecb"
"$aesgpu" encrypt -q --mode ctr -K "$key" --iv "$iv" "$data" -o "$stage/cli.ctr"
for program in "${programs[@]}"; do
    name=$(basename "$program")
    "$program" ecb "$key" "$data" "$stage/$name.ecb" >/dev/null
    cmp "$stage/cli.ecb" "$stage/$name.ecb" || fail "$name ecb differs from aesgpu encrypt -K"
    "$program" ctr "$key" "$data" "$stage/$name.ctr" "$iv" >/dev/null
    cmp "$stage/cli.ctr" "$stage/$name.ctr" || fail "$name ctr differs from aesgpu encrypt --mode ctr -K --iv"
    "$program" gcm "$key" "$data" "$stage/$name.gcm" >/dev/null
    "$aesgpu" decrypt -q --mode gcm -K "$key" "$stage/$name.gcm" -o "$stage/$name.back"
    cmp "$data" "$stage/$name.back" || fail "aesgpu decrypt --mode gcm gave other bytes than $name encrypted"
    if "$program" ctr "$key" "$data" "$stage/$name.no-iv" 2>"$stage/err"; then fail "$name ctr without an IV ran"; fi
    grep -qi "iv is required" "$stage/err" || fail "$name ctr without an IV said: $(cat "$stage/err")"
    # A mode it does not know (or a case it does not take) is refused, never taken for ECB.
    for unknown in GCM bogus; do
        rc=0
        "$program" "$unknown" "$key" "$data" "$stage/$name.$unknown" 2>"$stage/err" || rc=$?
        [ $rc -eq 2 ] && [ ! -e "$stage/$name.$unknown" ] || fail "$name $unknown exited $rc (wrote: $(ls "$stage/$name.$unknown" 2>&1))"
        grep -q "unknown mode '$unknown'" "$stage/err" || fail "$name $unknown said: $(cat "$stage/err")"
    done
done
echo "ok: ${programs[*]##*/} write what aesgpu encrypt writes: ecb, ctr; gcm decrypts"
