#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what aesgpu needs to build and test on Debian 12 / Ubuntu 24.04, skipping apt-get when
# everything is already there (so it also works on machines without network access).
# The CUDA toolkit is optional and not installed here: with nvcc on PATH the GPU backend is built.
set -euo pipefail

packages=(build-essential cmake pkg-config libssl-dev openssl libcli11-dev libspdlog-dev libfmt-dev
          libgtest-dev nlohmann-json3-dev scdoc liburing-dev bsdutils util-linux acl xxd python3 python3-venv)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "installing: ${missing[*]}" >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
