#!/usr/bin/env bash
# pre-commit's `language: script` entry: build retrylint in this hook repository's checkout
# (pre-commit keeps it in its cache) on first use, then lint the files pre-commit passes.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -x "$here/build-hook/retrylint" ]; then
  # Static LLVM/Clang: the hook starts in ~10 ms instead of loading 170 MB of shared libraries.
  cmake -S "$here" -B "$here/build-hook" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRETRYLINT_TESTS=OFF \
    -DRETRYLINT_STATIC_LLVM=ON >/dev/null
  cmake --build "$here/build-hook" --target retrylint >/dev/null
fi
exec "$here/build-hook/retrylint" "$@"
