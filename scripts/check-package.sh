#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` in BUILD_DIR makes two packages. The command's depends on the libraries aesgpu
# links (libssl3, libfmt, libspdlog), holds the binary, man page and completions, and its aesgpu
# runs once unpacked. aesgpu-dev holds libaesgpu.a, include/aesgpu/, the CMake package and
# aesgpu.pc, and depends on the -dev packages they need. Exit 77 (skipped) where dpkg's tools are
# missing. With --install (CI only, as root) it also installs both with dpkg -i, runs aesgpu
# --version, builds examples/encrypt_file.cpp against the installed library (find_package and
# pkg-config, no paths given) and checks its output against the installed command's, then
# removes both.
# Usage: check-package.sh BUILD_DIR [--install]
set -uo pipefail
build=${1:?usage: check-package.sh BUILD_DIR [--install]}
for tool in cpack dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log"; echo "cpack failed"; exit 1; }
deb=""
dev_deb=""
for made in "$out"/*.deb; do
    [ -f "$made" ] || continue
    case $(dpkg-deb -f "$made" Package) in
        aesgpu | aesgpu-cuda) deb=$made ;;
        aesgpu-dev | aesgpu-cuda-dev) dev_deb=$made ;;
        *) echo "cpack made an unexpected package: $(basename "$made")"; exit 1 ;;
    esac
done
[ -n "$deb" ] || { echo "cpack made no package of the command"; ls "$out"; exit 1; }
[ -n "$dev_deb" ] || { echo "cpack made no -dev package"; ls "$out"; exit 1; }
failures=0
depends=$(dpkg-deb -f "$deb" Depends)
for library in libssl3 libfmt libspdlog; do
    grep -q "$library" <<<"$depends" || { echo "FAIL: Depends lacks $library: $depends"; failures=$((failures + 1)); }
done
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for path in ./usr/bin/aesgpu ./usr/share/bash-completion/completions/aesgpu ./usr/share/zsh/site-functions/_aesgpu \
            ./usr/share/fish/vendor_completions.d/aesgpu.fish; do
    grep -qx -- "$path" <<<"$contents" || { echo "FAIL: $deb lacks $path"; failures=$((failures + 1)); }
done
# FORMAT.md, which the man page names, beside README.md.
grep -qx './usr/share/doc/[^/]*/FORMAT.md' <<<"$contents" || { echo "FAIL: $deb lacks FORMAT.md"; failures=$((failures + 1)); }
if [ -f "$build/docs/aesgpu.1" ] && ! grep -qx ./usr/share/man/man1/aesgpu.1 <<<"$contents"; then
    echo "FAIL: $deb lacks the man page"
    failures=$((failures + 1))
fi
name=$(dpkg-deb -f "$deb" Package)
dev_name=$(dpkg-deb -f "$dev_deb" Package)
# A CUDA build is aesgpu-cuda, says which GPU architectures it carries code for and suggests the
# driver; each flavour conflicts with and replaces the other, so that dpkg -i switches.
cuda_built=$(grep -c '^AESGPU_CUDA_BUILT:INTERNAL=ON$' "$build/CMakeCache.txt" || true)
description=$(dpkg-deb -f "$deb" Description)
tr -d '\n' <<<"$description" | grep -q 'ECB, CTR, CBC and GCM' ||
    { echo "FAIL: the description does not name the modes: $description"; failures=$((failures + 1)); }
if [ "$cuda_built" -gt 0 ]; then
    other=aesgpu
    [ "$name" = aesgpu-cuda ] || { echo "FAIL: a CUDA build's package is named $name"; failures=$((failures + 1)); }
    grep -q 'architectures: [0-9]' <<<"$description" ||
        { echo "FAIL: the CUDA package does not name its architectures: $description"; failures=$((failures + 1)); }
    grep -q 'linked in; it needs the NVIDIA driver' <<<"$description" ||
        { echo "FAIL: the CUDA package's description: $description"; failures=$((failures + 1)); }
    [ "$(dpkg-deb -f "$deb" Suggests)" = nvidia-driver ] ||
        { echo "FAIL: $name does not suggest nvidia-driver"; failures=$((failures + 1)); }
else
    other=aesgpu-cuda
    [ "$name" = aesgpu ] || { echo "FAIL: a CPU-only build's package is named $name"; failures=$((failures + 1)); }
fi
for field in Conflicts Replaces; do
    [ "$(dpkg-deb -f "$deb" "$field")" = "$other" ] || { echo "FAIL: $name's $field is not $other"; failures=$((failures + 1)); }
    [ "$(dpkg-deb -f "$dev_deb" "$field")" = "$other-dev" ] ||
        { echo "FAIL: $dev_name's $field is not $other-dev"; failures=$((failures + 1)); }
done
[ "$dev_name" = "$name-dev" ] ||
    { echo "FAIL: the -dev package of $name is named $dev_name"; failures=$((failures + 1)); }
dev_contents=$(dpkg-deb -c "$dev_deb" | awk '{ print $6 }')
for path in ./usr/include/aesgpu/aesgpu.hpp ./usr/include/aesgpu/types.hpp ./usr/lib/libaesgpu.a \
            ./usr/lib/cmake/aesgpu/aesgpuConfig.cmake ./usr/lib/pkgconfig/aesgpu.pc; do
    grep -qx -- "$path" <<<"$dev_contents" || { echo "FAIL: $dev_deb lacks $path"; failures=$((failures + 1)); }
done
if grep -q '^./usr/bin/' <<<"$dev_contents"; then echo "FAIL: $dev_deb holds a program"; failures=$((failures + 1)); fi
dev_depends=$(dpkg-deb -f "$dev_deb" Depends)
grep -q "libssl-dev" <<<"$dev_depends" || { echo "FAIL: $dev_name's Depends lacks libssl-dev: $dev_depends"; failures=$((failures + 1)); }
dpkg-deb -x "$deb" "$out/root"
version=$("$out/root/usr/bin/aesgpu" --version | head -1) || { echo "FAIL: the packaged aesgpu does not run"; exit 1; }
[[ $version == "aesgpu $(dpkg-deb -f "$deb" Version)" ]] ||
    { echo "FAIL: the package's version $(dpkg-deb -f "$deb" Version) is not aesgpu's ($version)"; failures=$((failures + 1)); }
# An optimised build, unless sanitized or AESGPU_HARDENING=OFF, is hardened: relocations read-only
# and bound at start, a stack protector, fortified libc calls.
sanitized=$(sed -n 's/^AESGPU_SANITIZE:STRING=//p' "$build/CMakeCache.txt")
if [ -z "$sanitized" ] && grep -q '^AESGPU_HARDENING:BOOL=ON$' "$build/CMakeCache.txt" &&
   grep -Eq '^CMAKE_BUILD_TYPE:STRING=(Release|RelWithDebInfo|MinSizeRel)$' "$build/CMakeCache.txt"; then
    binary=$out/root/usr/bin/aesgpu
    hardening=""
    readelf -d "$binary" | grep -q 'BIND_NOW' || hardening+=" -z now"
    readelf -lW "$binary" | grep -q 'GNU_RELRO' || hardening+=" -z relro"
    symbols=$(readelf --dyn-syms -W "$binary")
    grep -q '__stack_chk_fail' <<<"$symbols" || hardening+=" stack-protector"
    grep -Eq '__[a-z]+_chk\b' <<<"$symbols" || hardening+=" fortify"
    [ -z "$hardening" ] || { echo "FAIL: the packaged aesgpu lacks hardening:$hardening"; failures=$((failures + 1)); }
fi
if [ "${2:-}" = "--install" ]; then
    dpkg -i "$deb" "$dev_deb" >/dev/null || { echo "FAIL: dpkg -i $deb $dev_deb"; exit 1; }
    installed=$(aesgpu --version | head -1)
    man -w aesgpu >/dev/null 2>&1 || [ ! -f "$build/docs/aesgpu.1" ] || { echo "FAIL: man aesgpu finds no page"; failures=$((failures + 1)); }
    examples=$(cd "$(dirname "$0")/../examples" && pwd)
    if cmake -S "$examples" -B "$out/examples" >"$out/examples.log" 2>&1 && cmake --build "$out/examples" >>"$out/examples.log" 2>&1 &&
       c++ -std=c++20 -o "$out/encrypt_file_pc" "$examples/encrypt_file.cpp" $(pkg-config --cflags --libs aesgpu) >>"$out/examples.log" 2>&1; then
        head -c 100003 /dev/urandom >"$out/data"
        key=000102030405060708090a0b0c0d0e0f
        aesgpu encrypt -q -K $key "$out/data" -o "$out/cli.aes"
        for program in "$out/examples/encrypt_file" "$out/encrypt_file_pc"; do
            "$program" ecb $key "$out/data" "$out/example.aes" >/dev/null && cmp -s "$out/cli.aes" "$out/example.aes" ||
                { echo "FAIL: $program (linked against the installed $dev_name) differs from the installed aesgpu"; failures=$((failures + 1)); }
            rm -f "$out/example.aes"
        done
    else
        cat "$out/examples.log"
        echo "FAIL: examples/encrypt_file.cpp does not build against the installed $dev_name"
        failures=$((failures + 1))
    fi
    dpkg -r "$name" "$dev_name" >/dev/null || { echo "FAIL: dpkg -r $name $dev_name"; failures=$((failures + 1)); }
    echo "ok: dpkg -i installed $name and $dev_name; aesgpu --version: $installed; the example built against" \
         "them (CMake and pkg-config) writes what aesgpu writes; dpkg -r removed them"
fi
[ "$failures" -eq 0 ] || exit 1
echo "ok: $(basename "$deb"): Depends: $depends"
echo "ok: $(basename "$dev_deb"): Depends: $dev_depends"
echo "ok: $name $(dpkg-deb -f "$deb" Version) unpacks to a running $version"
