#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` in BUILD_DIR makes a .deb that depends on the libraries aesgpu links (libssl3,
# libfmt, libspdlog), holds the binary, man page and completions, and whose aesgpu runs once
# unpacked. Exit 77 (skipped) where dpkg's tools are missing. With --install (CI only, as root)
# it also installs the package with dpkg -i, runs aesgpu --version, and removes it.
# Usage: check-package.sh BUILD_DIR [--install]
set -uo pipefail
build=${1:?usage: check-package.sh BUILD_DIR [--install]}
for tool in cpack dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log"; echo "cpack failed"; exit 1; }
deb=$(ls "$out"/*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "cpack made no .deb"; exit 1; }
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
if [ -f "$build/docs/aesgpu.1" ] && ! grep -qx ./usr/share/man/man1/aesgpu.1 <<<"$contents"; then
    echo "FAIL: $deb lacks the man page"
    failures=$((failures + 1))
fi
name=$(dpkg-deb -f "$deb" Package)
# A CUDA build is aesgpu-cuda and says which GPU architectures it carries code for.
cuda_built=$(grep -c '^AESGPU_CUDA_BUILT:INTERNAL=ON$' "$build/CMakeCache.txt" || true)
description=$(dpkg-deb -f "$deb" Description)
if [ "$cuda_built" -gt 0 ]; then
    [ "$name" = aesgpu-cuda ] || { echo "FAIL: a CUDA build's package is named $name"; failures=$((failures + 1)); }
    grep -q 'architectures: [0-9]' <<<"$description" ||
        { echo "FAIL: the CUDA package does not name its architectures: $description"; failures=$((failures + 1)); }
else
    [ "$name" = aesgpu ] || { echo "FAIL: a CPU-only build's package is named $name"; failures=$((failures + 1)); }
fi
dpkg-deb -x "$deb" "$out/root"
version=$("$out/root/usr/bin/aesgpu" --version | head -1) || { echo "FAIL: the packaged aesgpu does not run"; exit 1; }
[[ $version == "aesgpu $(dpkg-deb -f "$deb" Version)" ]] ||
    { echo "FAIL: the package's version $(dpkg-deb -f "$deb" Version) is not aesgpu's ($version)"; failures=$((failures + 1)); }
if [ "${2:-}" = "--install" ]; then
    dpkg -i "$deb" >/dev/null || { echo "FAIL: dpkg -i $deb"; exit 1; }
    installed=$(aesgpu --version | head -1)
    man -w aesgpu >/dev/null 2>&1 || [ ! -f "$build/docs/aesgpu.1" ] || { echo "FAIL: man aesgpu finds no page"; failures=$((failures + 1)); }
    dpkg -r "$name" >/dev/null || { echo "FAIL: dpkg -r $name"; failures=$((failures + 1)); }
    echo "ok: dpkg -i installed $name; aesgpu --version: $installed; dpkg -r removed it"
fi
[ "$failures" -eq 0 ] || exit 1
echo "ok: $(basename "$deb"): Depends: $depends"
echo "ok: $name $(dpkg-deb -f "$deb" Version) unpacks to a running $version"
