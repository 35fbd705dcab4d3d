#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The man page says what --help says: every long option of every command's --help is in
# docs/aesgpu.1.scd, and the page names no option that no --help lists. With a built page, also
# that groff renders it without a warning. Run by ctest (Docs.ManPageMatchesTheHelp).
# Usage: check-manpage.sh AESGPU_BINARY SCDOC_SOURCE [BUILT_PAGE]
set -euo pipefail
binary=${1:?usage: check-manpage.sh AESGPU_BINARY SCDOC_SOURCE [BUILT_PAGE]}
source=${2:?usage: check-manpage.sh AESGPU_BINARY SCDOC_SOURCE [BUILT_PAGE]}
page=${3:-}
here=$(dirname "$0")
longs() { grep -o -- '--[a-z][-a-z0-9]*' | sort -u; }

failures=0
in_help=$("$binary" --help | awk -f "$here/help-options.awk" | grep -- '^--' || true)
commands=$("$binary" --help | awk '/^[Ss][Uu][Bb][Cc][Oo][Mm][Mm][Aa][Nn][Dd][Ss]/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for command in $commands; do
    options=$("$binary" "$command" --help | awk -f "$here/help-options.awk" | grep -- '^--' | grep -vx -- '--help' || true)
    in_help+=$'\n'"$options"
    for option in $options; do
        # scdoc writes an option as *--name* (bold); prose may mention it plainly.
        grep -q -- "$option\\b" "$source" || { echo "FAIL: aesgpu $command --help lists $option; the man page does not"; failures=$((failures + 1)); }
    done
    grep -q "^\*\?$command\b\|^## $command\b\|aesgpu $command" "$source" || { echo "FAIL: the man page has nothing on the $command command"; failures=$((failures + 1)); }
done
in_help=$(printf '%s\n' "$in_help" --help --version | sort -u)
extra=$(comm -23 <(longs <"$source") <(printf '%s\n' "$in_help"))
if [ -n "$extra" ]; then
    echo "FAIL: the man page names options that no --help lists: $(echo $extra)"
    failures=$((failures + 1))
fi
if [ -n "$page" ] && command -v groff >/dev/null; then
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1 || true)
    [ -z "$warnings" ] || { echo "FAIL: groff warns about $page: $warnings"; failures=$((failures + 1)); }
fi
[ "$failures" -eq 0 ] || exit 1
echo "ok: the man page and --help name the same options (commands: $(echo $commands))"
