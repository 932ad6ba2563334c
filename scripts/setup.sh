#!/usr/bin/env bash
# Installs what the build needs on Debian 12 (only the packages that are missing) and builds
# retrylint and its tests into build/. Used by demo.sh, test.sh and CI.
set -euo pipefail
cd "$(dirname "$0")/.."

# What builds the program (scripts/package.sh and the Dockerfile need only these) …
build_packages=(cmake ninja-build g++ llvm-14-dev libclang-14-dev libclang-cpp14-dev libyaml-cpp-dev
                clang-14                    # Debian ships ClangConfig.cmake in clang-14, not in libclang-14-dev
                zlib1g-dev libncurses-dev   # static zlib and terminfo for RETRYLINT_PORTABLE
                lld                         # ld.lld (LLVM 14's): links -DRETRYLINT_STATIC_LLVM=ON builds in seconds
                libtomlplusplus-dev)        # toml++ 3, header-only here: Traefik's TOML files
# … and what the test suite adds.
test_packages=(git libgtest-dev
               pre-commit          # the pre-commit end-to-end test (Node.js/npm for the SARIF validator come with the base image)
               libclang-rt-14-dev)  # clang's sanitizer runtimes: scripts/sanitize.sh and scripts/fuzz.sh
packages=("${build_packages[@]}" "${test_packages[@]}")
# `setup.sh --packages [EXTRA...]`: only install the packages (and the extra ones), do not build.
# `setup.sh --build-packages [EXTRA...]`: the same without the test suite's packages.
only_packages=0
if [ "${1:-}" = "--packages" ] || [ "${1:-}" = "--build-packages" ]; then
  [ "$1" = "--packages" ] || packages=("${build_packages[@]}")
  only_packages=1
  shift
  packages+=("$@")
fi
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

[ "$only_packages" = 0 ] || exit 0

# Microsoft's SARIF validator, for the tests that check our SARIF independently.
if [ ! -x build-tools/node_modules/.bin/sarif-multitool ] && command -v npm >/dev/null; then
  npm install --prefix build-tools --no-audit --no-fund --loglevel=error @microsoft/sarif-multitool@5.7.0 >/dev/null
fi
# npm may not run the package's install script that marks its binary executable.
chmod u+x build-tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool 2>/dev/null || true

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
