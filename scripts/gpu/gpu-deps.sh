#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fills .deps/ (ignored by git), an install prefix that the device tool carries to the GPU host,
# with what that host lacks and cannot fetch (it has no network): nlohmann-json's headers and
# scdoc for the build, liburing for direct I/O, GNU parallel and setfacl for the tests that drive
# them. From Debian's packages, unpacked (not installed) here; scripts/gpu/gpu-check.sh puts .deps on
# its paths.
# Usage: scripts/gpu/gpu-deps.sh, then name .deps in the device tool's `carry`.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download nlohmann-json3-dev scdoc parallel acl libacl1 liburing-dev liburing2 >/dev/null)
rm -rf .deps
mkdir -p .deps
for package in "$work"/*.deb; do dpkg-deb -x "$package" "$work/root"; done
cp -a "$work/root/usr/." .deps/
# setfacl and getfacl live in /bin on Debian 12, beside their library.
[ -d "$work/root/bin" ] && cp -a "$work/root/bin/." .deps/bin/
[ -d "$work/root/lib" ] && cp -a "$work/root/lib/." .deps/lib/
# liburing2 is also needed at run time by an installed binary and by dpkg-shlibdeps when the .deb
# is made: scripts/gpu/gpu-check.sh installs these two where the host lacks them.
mkdir -p .deps/debs && cp "$work"/liburing*.deb .deps/debs/
echo "gpu-deps: $(du -sh .deps | cut -f1) in .deps: $(ls .deps/bin | tr '\n' ' ')"
