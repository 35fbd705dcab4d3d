#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` in BUILD_DIR makes two packages. The command's depends on the libraries aesgpu
# links (libssl3; libfmt and libspdlog where AESGPU_STATIC_CXX_RUNTIME is off, and never them nor
# libstdc++ where it is on), holds the stripped (and hardened) binary, the gzipped man
# page, the completions (zsh's in vendor-completions, on Debian's $fpath) and, in
# /usr/share/doc/PACKAGE, README.md and the docs it points to (usage.md, modes.md, FORMAT.md,
# library.md, packaging.md), the copyright and changelog.gz; its aesgpu runs
# once unpacked. aesgpu-dev holds libaesgpu.a, include/aesgpu/, the CMake package and aesgpu.pc,
# and depends on the -dev packages they need. lintian, where installed, finds no error and no
# warning in either (a sanitized build's are not checked: it is no package to ship). Exit 77
# (skipped) where dpkg's tools are missing.
# With --install (CI only, as root; lintian is then required) it also installs both with dpkg -i,
# runs aesgpu --version, man aesgpu and a clean zsh's completion lookup, builds
# examples/encrypt_file.cpp against the installed library (find_package and pkg-config, no paths
# given) and checks its output against the installed command's, then removes both. --switch also
# builds the other flavour (CPU-only beside a CUDA build, else CUDA for one architecture where nvcc
# is found) in BUILD_DIR-switch and switches to its packages and back with dpkg -i.
# Usage: check-package.sh BUILD_DIR [--install [--switch]]
set -uo pipefail
usage="usage: check-package.sh BUILD_DIR [--install [--switch]]"
build=${1:?$usage}
install=${2:-}
switch=${3:-}
[ -z "$install" ] || [ "$install" = --install ] || { echo "$usage"; exit 2; }
[ -z "$switch" ] || [ "$switch" = --switch ] || { echo "$usage"; exit 2; }
for tool in cpack dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# cpack -G DEB in build directory $1 into $2; prints the command's package, then the -dev one.
make_packages() {
    local made cli="" dev=""
    mkdir -p "$2"
    (cd "$1" && cpack -G DEB -B "$2" >"$2.log" 2>&1) || { cat "$2.log" >&2; echo "cpack failed in $1" >&2; return 1; }
    for made in "$2"/*.deb; do
        [ -f "$made" ] || continue
        case $(dpkg-deb -f "$made" Package) in
            aesgpu | aesgpu-cuda) cli=$made ;;
            aesgpu-dev | aesgpu-cuda-dev) dev=$made ;;
            *) echo "cpack made an unexpected package: $(basename "$made")" >&2; return 1 ;;
        esac
    done
    if [ -z "$cli" ] || [ -z "$dev" ]; then echo "cpack in $1 made: $(ls "$2")" >&2; return 1; fi
    echo "$cli $dev"
}
cuda_built() { grep -q '^AESGPU_CUDA_BUILT:INTERNAL=ON$' "$1/CMakeCache.txt"; }

read -r deb dev_deb <<<"$(make_packages "$build" "$out/debs")"
[ -n "$deb" ] || exit 1
depends=$(dpkg-deb -f "$deb" Depends)
if grep -q '^AESGPU_STATIC_CXX_RUNTIME:BOOL=OFF$' "$build/CMakeCache.txt"; then
    needed=(libssl3 libfmt libspdlog) carried=()
else
    needed=(libssl3) carried=(libstdc++ libgcc-s libfmt libspdlog)
fi
for library in "${needed[@]}"; do
    grep -q "$library" <<<"$depends" || fail "Depends lacks $library: $depends"
done
for library in "${carried[@]}"; do
    grep -q "$library" <<<"$depends" && fail "Depends names $library, which the binary carries: $depends"
done
name=$(dpkg-deb -f "$deb" Package)
dev_name=$(dpkg-deb -f "$dev_deb" Package)
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for path in ./usr/bin/aesgpu ./usr/share/bash-completion/completions/aesgpu ./usr/share/zsh/vendor-completions/_aesgpu \
            ./usr/share/fish/vendor_completions.d/aesgpu.fish ./usr/share/doc/"$name"/{copyright,changelog.gz,README.md,usage.md,modes.md,FORMAT.md,library.md,packaging.md}; do
    grep -qx -- "$path" <<<"$contents" || fail "$deb lacks $path"
done
# site-functions under /usr is on no $fpath of Debian's zsh; an uncompressed page breaks policy.
for path in ./usr/share/zsh/site-functions/_aesgpu ./usr/share/man/man1/aesgpu.1; do
    ! grep -qx -- "$path" <<<"$contents" || fail "$deb holds $path"
done
if [ -f "$build/docs/aesgpu.1" ] && ! grep -qx ./usr/share/man/man1/aesgpu.1.gz <<<"$contents"; then
    fail "$deb lacks the man page"
fi
# A CUDA build is aesgpu-cuda, says which GPU architectures it carries code for and suggests the
# driver; each flavour conflicts with and replaces the other, so that dpkg -i switches.
description=$(dpkg-deb -f "$deb" Description)
tr -d '\n' <<<"$description" | grep -q 'ECB, CTR, CBC and GCM' ||
    fail "the description does not name the modes: $description"
if cuda_built "$build"; then
    other=aesgpu
    [ "$name" = aesgpu-cuda ] || fail "a CUDA build's package is named $name"
    tr '\n' ' ' <<<"$description" | grep -Eq 'CUDA architectures +[0-9]' ||
        fail "the CUDA package does not name its architectures: $description"
    grep -q 'linked in; it needs the NVIDIA driver' <<<"$description" || fail "the CUDA package's description: $description"
    [ "$(dpkg-deb -f "$deb" Suggests)" = nvidia-driver ] || fail "$name does not suggest nvidia-driver"
else
    other=aesgpu-cuda
    [ "$name" = aesgpu ] || fail "a CPU-only build's package is named $name"
fi
for field in Conflicts Replaces; do
    [ "$(dpkg-deb -f "$deb" "$field")" = "$other" ] || fail "$name's $field is not $other"
    [ "$(dpkg-deb -f "$dev_deb" "$field")" = "$other-dev" ] || fail "$dev_name's $field is not $other-dev"
done
[ "$dev_name" = "$name-dev" ] || fail "the -dev package of $name is named $dev_name"
dev_contents=$(dpkg-deb -c "$dev_deb" | awk '{ print $6 }')
for path in ./usr/include/aesgpu/aesgpu.hpp ./usr/include/aesgpu/types.hpp ./usr/lib/libaesgpu.a \
            ./usr/lib/cmake/aesgpu/aesgpuConfig.cmake ./usr/lib/pkgconfig/aesgpu.pc ./usr/share/doc/"$dev_name"/{copyright,changelog.gz}; do
    grep -qx -- "$path" <<<"$dev_contents" || fail "$dev_deb lacks $path"
done
if grep -q '^./usr/bin/' <<<"$dev_contents"; then fail "$dev_deb holds a program"; fi
dev_depends=$(dpkg-deb -f "$dev_deb" Depends)
grep -q "libssl-dev" <<<"$dev_depends" || fail "$dev_name's Depends lacks libssl-dev: $dev_depends"
dpkg-deb -x "$deb" "$out/root"
version=$("$out/root/usr/bin/aesgpu" --version | head -1) || { echo "FAIL: the packaged aesgpu does not run"; exit 1; }
[[ $version == "aesgpu $(dpkg-deb -f "$deb" Version)" ]] ||
    fail "the package's version $(dpkg-deb -f "$deb" Version) is not aesgpu's ($version)"
if readelf -S "$out/root/usr/bin/aesgpu" | grep -q '\.symtab'; then fail "the packaged aesgpu is not stripped"; fi
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
    [ -z "$hardening" ] || fail "the packaged aesgpu lacks hardening:$hardening"
fi

# lintian: info and pedantic tags are shown, only errors and warnings fail.
if [ -n "$sanitized" ]; then
    echo "note: a sanitized build ($sanitized): lintian not run"
elif command -v lintian >/dev/null; then
    lintian --fail-on error,warning --display-info --pedantic "$deb" "$dev_deb" 2>&1 |
        grep -v '^running with root privileges' >"$out/lintian.log"
    status=${PIPESTATUS[0]}
    # What the packages override (cmake/debian-layout.cmake says why): lintian 2.116 exits 2 for an
    # overridden warning with --show-overrides.
    dpkg-deb --fsys-tarfile "$dev_deb" | tar -xO --wildcards './usr/share/lintian/overrides/*' 2>/dev/null |
        sed 's/^/O: /' >>"$out/lintian.log"
    sed 's/^/lintian: /' "$out/lintian.log"
    if [ "$status" -eq 0 ]; then echo "ok: lintian: no error or warning in $name or $dev_name"
    else fail "lintian found errors or warnings in $name or $dev_name"; fi
elif [ -n "$install" ]; then
    fail "lintian is not installed (apt-get install lintian)"
else
    echo "note: lintian is not installed: not run"
fi

# Installs the command's package $1 and the -dev package $2 with dpkg -i, and checks that they,
# not the other flavour, own /usr/bin/aesgpu and libaesgpu.a and that aesgpu runs.
install_pair() {
    local cli dev package
    cli=$(dpkg-deb -f "$1" Package)
    dev=$(dpkg-deb -f "$2" Package)
    dpkg -i "$1" "$2" >"$out/dpkg.log" 2>&1 || { cat "$out/dpkg.log"; fail "dpkg -i $(basename "$1") $(basename "$2")"; return 1; }
    [ "$(dpkg -S /usr/bin/aesgpu 2>/dev/null)" = "$cli: /usr/bin/aesgpu" ] || fail "/usr/bin/aesgpu is not $cli's: $(dpkg -S /usr/bin/aesgpu)"
    [ "$(dpkg -S /usr/lib/libaesgpu.a 2>/dev/null)" = "$dev: /usr/lib/libaesgpu.a" ] || fail "libaesgpu.a is not $dev's"
    for package in aesgpu aesgpu-cuda aesgpu-dev aesgpu-cuda-dev; do
        [ "$package" = "$cli" ] || [ "$package" = "$dev" ] ||
            [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null)" != "ii " ] || fail "$package is still installed beside $cli"
    done
    aesgpu --version >/dev/null || fail "aesgpu from $cli does not run"
}

if [ -n "$install" ]; then
    install_pair "$deb" "$dev_deb" || exit 1
    installed=$(aesgpu --version | head -1)
    man -w aesgpu >/dev/null 2>&1 || [ ! -f "$build/docs/aesgpu.1" ] || fail "man aesgpu finds no page"
    [ -f "/usr/share/doc/$name/FORMAT.md" ] || fail "no /usr/share/doc/$name/FORMAT.md"
    # A clean zsh (-f: no rc files, Debian's default $fpath) finds the completion for aesgpu.
    if command -v zsh >/dev/null; then
        found=$(zsh -f -c 'autoload -U compinit && compinit -u -D && autoload +X _aesgpu && print -r -- ${_comps[aesgpu]}: $(whence -v _aesgpu)' 2>&1)
        [ "$found" = "_aesgpu: _aesgpu is a shell function from /usr/share/zsh/vendor-completions/_aesgpu" ] ||
            fail "zsh -f does not complete aesgpu from the package: $found"
    else
        fail "zsh is not installed: the package's zsh completion is not checked"
    fi
    examples=$source_dir/examples
    if cmake -S "$examples" -B "$out/examples" >"$out/examples.log" 2>&1 && cmake --build "$out/examples" >>"$out/examples.log" 2>&1 &&
       c++ -std=c++20 -o "$out/encrypt_file_pc" "$examples/encrypt_file.cpp" $(pkg-config --cflags --libs aesgpu) >>"$out/examples.log" 2>&1; then
        head -c 100003 /dev/urandom >"$out/data"
        key=000102030405060708090a0b0c0d0e0f
        aesgpu encrypt -q -K $key "$out/data" -o "$out/cli.aes"
        for program in "$out/examples/encrypt_file" "$out/encrypt_file_pc"; do
            "$program" ecb $key "$out/data" "$out/example.aes" >/dev/null && cmp -s "$out/cli.aes" "$out/example.aes" ||
                fail "$program (linked against the installed $dev_name) differs from the installed aesgpu"
            rm -f "$out/example.aes"
        done
    else
        cat "$out/examples.log"
        fail "examples/encrypt_file.cpp does not build against the installed $dev_name"
    fi
    switched=""
    if [ -n "$switch" ]; then
        other_build=${build%/}-switch
        flavour=(-DAESGPU_ENABLE_CUDA=OFF)
        if ! cuda_built "$build"; then
            nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
            [ -x "$nvcc" ] && flavour=(-DAESGPU_ENABLE_CUDA=ON "-DCMAKE_CUDA_COMPILER=$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90) || flavour=()
        fi
        if [ ${#flavour[@]} -eq 0 ]; then
            echo "note: no nvcc here: the switch to aesgpu-cuda is not tested"
        elif started=$SECONDS && cmake -S "$source_dir" -B "$other_build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
                "${flavour[@]}" >"$out/switch.log" 2>&1 && cmake --build "$other_build" -j"$(nproc)" >>"$out/switch.log" 2>&1 &&
             read -r other_deb other_dev_deb <<<"$(make_packages "$other_build" "$out/switch-debs")" && [ -n "$other_deb" ]; then
            echo "ok: built $(dpkg-deb -f "$other_deb" Package) in $other_build in $((SECONDS - started)) s"
            install_pair "$other_deb" "$other_dev_deb" && install_pair "$deb" "$dev_deb" &&
                switched="; dpkg -i switched to $(dpkg-deb -f "$other_deb" Package) and back"
        else
            tail -20 "$out/switch.log"
            fail "building the other flavour in $other_build"
        fi
    fi
    dpkg -r "$name" "$dev_name" >/dev/null || fail "dpkg -r $name $dev_name"
    echo "ok: dpkg -i installed $name and $dev_name; aesgpu --version: $installed; man and zsh -f find them; the example" \
         "built against them (CMake and pkg-config) writes what aesgpu writes$switched; dpkg -r removed them"
fi
[ "$failures" -eq 0 ] || exit 1
echo "ok: $(basename "$deb"): Depends: $depends"
echo "ok: $(basename "$dev_deb"): Depends: $dev_depends"
echo "ok: $name $(dpkg-deb -f "$deb" Version) unpacks to a running $version"
