#!/usr/bin/env bash
# Quick start 1: set up, build, and run retrylint on the demo folder.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo
echo "\$ build/retrylint fixtures/demo"
status=0
build/retrylint fixtures/demo || status=$?
echo
case $status in
  1) echo "retrylint exited 1: findings at or above --fail-on (warning). That is the demo working."; exit 0 ;;
  *) exit "$status" ;;
esac
