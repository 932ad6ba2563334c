#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang 14 with ASan + UBSan, in build-asan/) and runs each
# for a bounded time. Any crash, hang (> 10 s per input), leak or UB report fails the run and
# leaves the input in build-asan/fuzz-artifacts/TARGET/; keep it as a regression input in
# tests/data/fuzz-regressions/TARGET/ (replayed by tests/fuzz_regressions_test.cpp).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 20 s, every target)
#   CI:       scripts/fuzz.sh 15
#   long run: scripts/fuzz.sh 3600            (or one target: scripts/fuzz.sh 3600 analyse)
# The corpus grows in build-asan/fuzz-corpus/TARGET/ and is reused by the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
shift || true
all=(analyse yaml_json yaml_fast ini properties suppressions config duration cpp_tokens)
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=("${all[@]}")

export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
if [ ! -f build-asan/build.ninja ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRETRYLINT_SANITIZE=ON -DRETRYLINT_FUZZ=ON >/dev/null
fi
cmake --build build-asan -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")

shared=tests/data/corpus
# seed FILE PREFIX_BYTE(octal or "") DIR: copies FILE into DIR, behind the selector byte if any.
seed() {
  local name
  name="$(printf '%s' "$1" | md5sum | cut -c1-16)"
  if [ -n "$2" ]; then { printf "\\$2"; cat "$1"; } >"$3/seed-$name"; else cp "$1" "$3/seed-$name"; fi
}
# The analyse target's selector: file name by index (fuzz/targets.cpp), high bit = named.
selector() {
  case "$1" in
    *.yaml) echo 200 ;; *.json) echo 201 ;; *.ini) echo 202 ;; *.properties) echo 203 ;;
    */config) echo 204 ;; *.yml) echo 205 ;; */credentials) echo 206 ;;
    *.conf|*.conf.*) echo 211 ;; *.cfg|*.cfg.*) echo 212 ;; *.toml) echo 213 ;; *) echo 210 ;;
  esac
}
inputs() { find fixtures "$shared" tests/data -type f "$@" 2>/dev/null | grep -v '/fuzz-regressions/' | sort; }

status=0
summary=()
for t in "${targets[@]}"; do
  corpus="build-asan/fuzz-corpus/$t"
  artifacts="build-asan/fuzz-artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  case "$t" in
    analyse) for f in $(inputs ! -name '*.cpp' ! -name '*.h' ! -name '*.expect'); do seed "$f" "$(selector "$f")" "$corpus"; done ;;
    yaml_json)
      for f in $(inputs -name '*.yaml' -o -name '*.yml'); do seed "$f" 002 "$corpus"; done
      for f in $(inputs -name '*.json'); do seed "$f" 003 "$corpus"; done ;;
    yaml_fast)
      for f in $(inputs -name '*.yaml' -o -name '*.yml'); do seed "$f" 000 "$corpus"; done
      for f in $(inputs -name '*.json'); do seed "$f" 001 "$corpus"; done ;;
    ini) for f in $(inputs -name '*.ini' -o -name config -o -name credentials); do seed "$f" "" "$corpus"; done ;;
    properties) for f in $(inputs -name '*.properties'); do seed "$f" "" "$corpus"; done ;;
    suppressions)
      for f in $(inputs -path '*suppress*'); do seed "$f" 000 "$corpus"; done
      for f in $(inputs -name '*.cpp'); do seed "$f" 001 "$corpus"; done ;;
    config)
      for f in $(find . -name '.retrylint*.yaml' -not -path './build*' 2>/dev/null); do seed "$f" "" "$corpus"; done
      printf 'rules:\n  RL101: off\n  RL203: error\nsettings:\n  max-attempts: 4\nexclude: [vendor/, "**/*.gen.yaml"]\noverrides:\n  - paths: [deploy/*.json]\n    rules: {RL302: note}\nlayers:\n  - name: edge\n    paths: [mesh/]\n    owns-retries: true\n' >"$corpus/seed-config" ;;
    duration)
      for d in 1.5s 100ms 1h30m 0 0.100s 30s 10 -1 2m 500ms 0s 10s PT2S PT0.5S P1DT2H 1d 00:00:01 1.02:03:04.5 2; do
        printf '%s' "$d" >"$corpus/seed-$d"
      done ;;
    cpp_tokens) for f in $(inputs -name '*.cpp' -o -name '*.h'); do seed "$f" "" "$corpus"; done ;;
  esac
  for f in tests/data/fuzz-regressions/"$t"/*; do [ -f "$f" ] && cp "$f" "$corpus/"; done
  log="build-asan/fuzz-$t.log"
  echo "== fuzz_$t: ${seconds} s, $(ls "$corpus" | wc -l) inputs in the corpus"
  if build-asan/fuzz_"$t" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1; then
    execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')"
    summary+=("fuzz_$t: ok, $execs executions in ${seconds} s")
  else
    status=1
    summary+=("fuzz_$t: FAILED (see $log; input in $artifacts/)")
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -20 || true
  fi
done
printf '%s\n' "${summary[@]}"
exit "$status"
