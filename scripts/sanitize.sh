#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer, in build-asan/ (clang 14;
# the same build holds the fuzz targets of scripts/fuzz.sh). Any report fails the run.
# Usage: scripts/sanitize.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
jobs="$(nproc)"
if [ ! -f build-asan/build.ninja ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRETRYLINT_SANITIZE=ON -DRETRYLINT_FUZZ=ON >/dev/null
fi
cmake --build build-asan -j "$jobs"
# detect_leaks: leaks fail the run; halt_on_error: first report stops the test.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir build-asan -j "$jobs" --output-on-failure "$@"
