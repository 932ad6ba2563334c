#!/usr/bin/env bash
# Installs what the build needs on Debian 12 (only the packages that are missing) and builds
# retrylint and its tests into build/. Used by demo.sh, test.sh and CI.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ llvm-14-dev libclang-14-dev libclang-cpp14-dev libyaml-cpp-dev libgtest-dev
          clang-14 libclang-rt-14-dev)  # clang: scripts/sanitize.sh and scripts/fuzz.sh
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
