#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cmake --install BUILD_DIR --prefix STAGE` puts in STAGE: bin/aesgpu, which runs from there and
# prints "aesgpu X.Y.Z" first for --version; the man page (when the build made one: scdoc) that
# groff renders without warnings; and the bash, zsh and fish completions, which
# check-completions.sh then drives. Run by ctest (Build.InstallsEverything).
set -uo pipefail
build=${1:?usage: check-install.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --prefix "$stage" >/dev/null || { echo "cmake --install failed"; exit 1; }
[ -x "$stage/bin/aesgpu" ] || { echo "no $stage/bin/aesgpu"; find "$stage"; exit 1; }
first=$("$stage/bin/aesgpu" --version | head -1)
[[ $first =~ ^aesgpu\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "aesgpu --version began with '$first'"; exit 1; }
echo "ok: $stage/bin/aesgpu: $first"

page=$stage/share/man/man1/aesgpu.1
if [ -f "$build/docs/aesgpu.1" ]; then
    [ -f "$page" ] || { echo "the build made docs/aesgpu.1 but it was not installed as $page"; exit 1; }
    # man renders through nroff (groff); minimal images have man without it, or a stub.
    if command -v man >/dev/null && command -v nroff >/dev/null; then
        rendered=$(MANWIDTH=80 man -l "$page" 2>&1) || { echo "man -l $page failed: $rendered"; exit 1; }
        grep -q '^NAME' <<<"$rendered" && grep -q 'EXIT STATUS' <<<"$rendered" ||
            { echo "man -l $page lacks NAME or EXIT STATUS: $rendered"; exit 1; }
        echo "ok: $page renders"
    else
        echo "note: $page installed; not rendered (no man or nroff here)"
    fi
else
    echo "note: this build made no man page (scdoc missing, or AESGPU_MANPAGE=OFF)"
fi
exec "$here/check-completions.sh" "$stage" "$stage/bin/aesgpu"
