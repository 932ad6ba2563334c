#!/usr/bin/env bash
# Quick start 2: set up, build, and run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build -j "$(nproc)" --output-on-failure
