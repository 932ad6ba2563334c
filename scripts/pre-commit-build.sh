#!/usr/bin/env bash
# pre-commit's `language: script` entry (hook id retrylint-build): builds retrylint in this hook
# repository's checkout (pre-commit keeps it in its cache) on first use, then lints the files
# pre-commit passes. pre-commit runs batches of files in parallel: a lock makes the first batch
# build and the others wait for it, progress goes to stderr meanwhile, and a failed build shows
# its last lines. Needs the packages `scripts/setup.sh --build-packages` installs (Debian 12).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="$here/build-hook/retrylint"
if [ ! -x "$bin" ]; then
  exec 9>"$here/.build-hook.lock"
  flock 9   # released when this process ends (exec below or exit)
  if [ ! -x "$bin" ]; then
    log="$here/build-hook.log"
    echo "retrylint: building from source on first use (3 to 7 minutes; later runs start at once); log: $log" >&2
    (
      set -e
      # Static LLVM/Clang: the hook starts in ~10 ms instead of loading 170 MB of shared libraries.
      cmake -S "$here" -B "$here/build-hook" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRETRYLINT_TESTS=OFF \
        -DRETRYLINT_STATIC_LLVM=ON
      cmake --build "$here/build-hook" --target retrylint
    ) >"$log" 2>&1 &
    builder=$!
    while kill -0 "$builder" 2>/dev/null; do
      sleep "${RETRYLINT_PROGRESS_SECONDS:-15}" & wait $! || true
      step="$(grep -o '^\[[0-9]*/[0-9]*\]' "$log" | tail -1 || true)"
      kill -0 "$builder" 2>/dev/null && echo "retrylint: still building ${step:-(configuring)}" >&2
    done
    if ! wait "$builder"; then
      echo "retrylint: the build failed; its last lines (whole log: $log):" >&2
      tail -n 25 "$log" >&2
      echo "retrylint: the build needs the Debian packages listed by scripts/setup.sh --build-packages" >&2
      exit 2
    fi
    echo "retrylint: built $bin" >&2
  fi
fi
exec "$bin" "$@"
