#!/usr/bin/env bash
# Builds the release packages into dist/ (Debian 12, x86-64):
#   dist/retrylint-<version>-linux-x86_64.tar.gz  relocatable: bin/retrylint runs from any directory
#                                                 on any x86-64 Linux with nothing installed (a
#                                                 static executable; Clang's builtin headers carried
#                                                 in lib/retrylint/clang/include)
#   dist/retrylint_<version>_amd64.deb            the same files under /usr; Depends: from
#                                                 dpkg-shlibdeps (none: nothing is linked at run time)
# The Dockerfile's build stage runs this script; scripts/test-install.sh runs it in a clean Debian
# root and checks both packages there. Usage: scripts/package.sh [BUILD_DIR]  (default build-release)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-release}"

# dpkg-dev (dpkg-shlibdeps) and file: CPack's DEB generator computes Depends: with them.
scripts/setup.sh --build-packages dpkg-dev file

echo "retrylint: configuring $build (portable release build)" >&2
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRETRYLINT_TESTS=OFF \
  -DRETRYLINT_PORTABLE=ON >/dev/null
echo "retrylint: building (a few minutes on two cores the first time)" >&2
cmake --build "$build" --target retrylint -j "$(nproc)"

# A portable binary loads no shared library at all: check it rather than trust it.
if readelf -l "$build/retrylint" | grep -q INTERP || readelf -d "$build/retrylint" | grep -q NEEDED; then
  echo "retrylint: the release binary is not static; it needs at run time:" >&2
  readelf -d "$build/retrylint" | grep NEEDED >&2 || true
  exit 1
fi

mkdir -p dist
out="$PWD/dist"
(cd "$build" && cpack -G "TGZ;DEB" -B "$out/.cpack" >/dev/null)
mv -f dist/.cpack/retrylint*.tar.gz dist/.cpack/retrylint*.deb dist/
rm -rf dist/.cpack
ls -l dist/retrylint*.tar.gz dist/retrylint*.deb
