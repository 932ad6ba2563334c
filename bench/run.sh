#!/usr/bin/env bash
# The retrylint benchmark: builds retrylint (Release), installs Spectral from npm into a local
# prefix, generates the corpora (bench/gen.js) and times retrylint against the alternatives on the
# same files. Prints a Markdown table (also written to $WORK/results.md). Not part of the tests.
#
#   bench/run.sh                 everything, RUNS=3 (medians)
#   RUNS=5 SIZES="1000 10000" CPP_N=400 BUILD_DIR=build bench/run.sh
#
# Installs what it needs on Debian 12 (scripts/setup.sh --packages: the build's packages, clang-tidy-14,
# GNU time); Node.js/npm come with the base image.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$ROOT/bench/.work}
RUNS=${RUNS:-3}
SPECTRAL_RUNS=${SPECTRAL_RUNS:-$RUNS}
SIZES=${SIZES:-"1000 10000 100000"}
SPECTRAL_SIZES=${SPECTRAL_SIZES:-"1000 10000"}   # Spectral on 100k files takes too long to repeat
CPP_N=${CPP_N:-400}
PARTS=${PARTS:-"configs precommit cpp review"}     # run a subset: PARTS=cpp bench/run.sh
CPP_RUNS=${CPP_RUNS:-$RUNS}
CPP_ALT_RUNS=${CPP_ALT_RUNS:-$CPP_RUNS}                 # clang-tidy / clang++ on the whole tree take minutes a run
BUILD_DIR=${BUILD_DIR:-$ROOT/build-bench}
mkdir -p "$WORK"
# The build's packages, GNU time and clang-tidy (installed when missing; Spectral comes from npm below).
"$ROOT/scripts/setup.sh" --packages time clang-tidy-14

# ---- tools -------------------------------------------------------------------------------------
if [ ! -x "$BUILD_DIR/retrylint" ] || [ "${REBUILD:-1}" = 1 ]; then
  # What a user installs: Release, LLVM and Clang linked statically (fast start-up).
  [ -f "$BUILD_DIR/CMakeCache.txt" ] || cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DRETRYLINT_STATIC_LLVM=ON -DRETRYLINT_TESTS=OFF >/dev/null
  ninja -C "$BUILD_DIR" retrylint >/dev/null
fi
RL=$BUILD_DIR/retrylint
SPECTRAL=$WORK/spectral/node_modules/.bin/spectral
if [ ! -x "$SPECTRAL" ] && [ "$SPECTRAL_RUNS" -gt 0 ] && [[ " $PARTS " == *" configs "* ]]; then
  mkdir -p "$WORK/spectral"
  npm install --prefix "$WORK/spectral" --no-audit --no-fund @stoplight/spectral-cli >/dev/null 2>&1
fi
RULESET=$ROOT/bench/spectral/.spectral.yaml

# ---- measuring ---------------------------------------------------------------------------------
# sample NAME -- CMD...: one run under GNU time, added to NAME's samples.
# summarize NAME FILES BYTES: medians of NAME's samples (wall, CPU = user+sys, peak RSS) -> a row.
# measure NAME FILES BYTES RUNS -- CMD...: RUNS samples, then the row.
declare -A WALL CPU RSS SAMPLES
sample() {
  local name=$1; shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/stderr.txt" || true
  SAMPLES[$name]+="$(tail -1 "$WORK/time.txt")"$'\n'
}
summarize() {
  local name=$1 files=$2 bytes=$3
  local runs med
  runs=$(printf '%s' "${SAMPLES[$name]}" | grep -c .)
  med=$(printf '%s' "${SAMPLES[$name]}" | awk 'NF {print $1, $2+$3, $4}' | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}')
  read -r w c m <<<"$med"
  WALL[$name]=$w; CPU[$name]=$c; RSS[$name]=$m
  awk -v n="$name" -v w="$w" -v c="$c" -v m="$m" -v f="$files" -v b="$bytes" -v r="$runs" 'BEGIN {
    ws = (w > 0 ? w : 0.01)
    printf "| %s | %d | %.2f | %.2f | %.0f | %.0f | %.1f |\n", n, r, w, c, m / 1024, f / ws, b / 1e6 / ws }' >>"$WORK/rows.md"
}
measure() {
  local name=$1 files=$2 bytes=$3 runs=$4; shift 4
  [ "$runs" -gt 0 ] || return 0 # RUNS=0 (SPECTRAL_RUNS=0, CPP_ALT_RUNS=0): the row is left out
  for _ in $(seq "$runs"); do sample "$name" "$@"; done
  summarize "$name" "$files" "$bytes"
}
ratio() { # "n/a" when either side was not measured
  if [ -z "${WALL[$1]:-}" ] || [ -z "${WALL[$2]:-}" ]; then echo "n/a"; return; fi
  awk -v a="${WALL[$1]}" -v b="${WALL[$2]}" 'BEGIN { printf "%.1fx", (a > 0 ? a : 0.001) / (b > 0 ? b : 0.001) }'
}
bytesOf() { find "$1" -type f -print0 | du -cb --files0-from=- | tail -1 | cut -f1; }

: >"$WORK/rows.md"
: >"$WORK/review-rows.md"
echo "load before: $(uptime)" >&2

# ---- configs -----------------------------------------------------------------------------------
[[ " $PARTS " == *" configs "* ]] || SIZES_RUN="" 
for n in ${SIZES_RUN-$SIZES}; do
  dir=$WORK/configs-$n
  [ -d "$dir" ] && [ "$(cat "$dir.n" 2>/dev/null)" = "$n" ] || { node "$ROOT/bench/gen.js" configs "$n" "$dir"; echo "$n" >"$dir.n"; }
  bytes=$(bytesOf "$dir")
  files=$(find "$dir" -type f | wc -l)
  # The variants take turns (-j1, -j2, -j1, -j2, ...): a slow spell of the machine (a VM's
  # neighbours, page cache reclaimed) then weighs on each alike, and the ratios between them hold.
  noPrefilter=0
  [ "${NO_PREFILTER_TOO:-1}" = 1 ] && [ "$n" = "$(echo $SIZES | awk '{print $1}')" ] && noPrefilter=1
  "$RL" -j1 --no-cache --format json -o /dev/null "$dir" >/dev/null 2>&1 || true # warm the page cache
  for _ in $(seq "$RUNS"); do
    sample "configs $n: retrylint -j1" -- "$RL" -j1 --no-cache --format json -o /dev/null "$dir"
    sample "configs $n: retrylint -j2" -- "$RL" -j2 --no-cache --format json -o /dev/null "$dir"
    [ $noPrefilter = 1 ] && sample "configs $n: retrylint -j1 --no-prefilter" -- "$RL" -j1 --no-cache --no-prefilter --format json -o /dev/null "$dir"
  done
  summarize "configs $n: retrylint -j1" "$files" "$bytes"
  summarize "configs $n: retrylint -j2" "$files" "$bytes"
  [ $noPrefilter = 1 ] && summarize "configs $n: retrylint -j1 --no-prefilter" "$files" "$bytes"
  if [[ " $SPECTRAL_SIZES " == *" $n "* ]]; then
    # Not in a subshell: measure records the median in WALL for the ratios below.
    pushd "$dir" >/dev/null
    measure "configs $n: Spectral" "$files" "$bytes" "$SPECTRAL_RUNS" -- "$SPECTRAL" lint --ruleset "$RULESET" -q -f json -o /dev/null --fail-severity=error "**/*.yaml" "**/*.yml" "**/*.json"
    popd >/dev/null
  fi
  # -j1 vs -j2 must print the same bytes.
  "$RL" -j1 --no-cache --format json "$dir" >"$WORK/j1.json" || true
  "$RL" -j2 --no-cache --format json "$dir" >"$WORK/j2.json" || true
  cmp -s "$WORK/j1.json" "$WORK/j2.json" && echo "configs $n: -j1 and -j2 output identical" >&2 || echo "configs $n: OUTPUT DIFFERS between -j1 and -j2" >&2
  grep -c '"rule"' "$WORK/j1.json" | sed "s/^/configs $n: findings: /" >&2
done

# ---- pre-commit shape --------------------------------------------------------------------------
if [[ " $PARTS " == *" precommit "* ]]; then
first=$WORK/configs-$(echo $SIZES | awk '{print $1}')
[ -d "$first" ] || node "$ROOT/bench/gen.js" configs "$(echo $SIZES | awk '{print $1}')" "$first"
mapfile -t few < <(find "$first" -type f \( -name '*.yaml' -o -name '*.json' -o -name '*.yml' \) | sort | head -5)
fewBytes=$(cat "${few[@]}" | wc -c)
measure "pre-commit: 5 files" 5 "$fewBytes" "$RUNS" -- "$RL" --no-cache "${few[@]}"
rm -rf "$WORK/cache"
"$RL" --cache-dir "$WORK/cache" "${few[@]}" >/dev/null 2>&1 || true
measure "pre-commit: 5 files, cached" 5 "$fewBytes" "$RUNS" -- "$RL" --cache-dir "$WORK/cache" "${few[@]}"
fi

# ---- C++ ---------------------------------------------------------------------------------------
if [[ " $PARTS " == *" cpp "* ]]; then
cdir=$WORK/cpp-$CPP_N
[ -d "$cdir" ] && [ "$(cat "$cdir.n" 2>/dev/null)" = "$CPP_N" ] || { node "$ROOT/bench/gen.js" cpp "$CPP_N" "$cdir"; echo "$CPP_N" >"$cdir.n"; }
mapfile -t tus < <(find "$cdir" -name '*.cpp' | sort)
mapfile -t rtus < <(find "$cdir" -name 'retry_*.cpp' | sort)
cbytes=$(bytesOf "$cdir")
rbytes=$(cat "${rtus[@]}" | wc -c)
CXXFLAGS="-std=c++17 -w"
measure "C++ $CPP_N TUs: retrylint -j1" "${#tus[@]}" "$cbytes" "$CPP_RUNS" -- "$RL" -j1 --no-cache --format json -o /dev/null "$cdir"
measure "C++ $CPP_N TUs: retrylint -j2" "${#tus[@]}" "$cbytes" "$CPP_RUNS" -- "$RL" -j2 --no-cache --format json -o /dev/null "$cdir"
measure "C++ $CPP_N TUs: clang-tidy-14 (1 check) -j1" "${#tus[@]}" "$cbytes" "$CPP_ALT_RUNS" -- clang-tidy-14 --quiet "-checks=-*,bugprone-infinite-loop" "${tus[@]}" -- $CXXFLAGS
measure "C++ $CPP_N TUs: clang++-14 -fsyntax-only -j1" "${#tus[@]}" "$cbytes" "$CPP_ALT_RUNS" -- clang++-14 -fsyntax-only $CXXFLAGS "${tus[@]}"
measure "C++ retry TUs: retrylint -j1" "${#rtus[@]}" "$rbytes" "$CPP_RUNS" -- "$RL" -j1 --no-cache --format json -o /dev/null "${rtus[@]}"
measure "C++ retry TUs: clang++-14 -fsyntax-only -j1" "${#rtus[@]}" "$rbytes" "$CPP_RUNS" -- clang++-14 -fsyntax-only $CXXFLAGS "${rtus[@]}"
"$RL" -j1 --no-cache --format json "$cdir" >"$WORK/cj1.json" || true
"$RL" -j2 --no-cache --format json "$cdir" >"$WORK/cj2.json" || true
cmp -s "$WORK/cj1.json" "$WORK/cj2.json" && echo "C++: -j1 and -j2 output identical" >&2 || echo "C++: OUTPUT DIFFERS between -j1 and -j2" >&2
fi

# ---- review and simulate -----------------------------------------------------------------------
# Milliseconds of wall time (the median of RUNS runs; `date +%s%N`, finer than GNU time's 10 ms),
# each command's own figure and its cost over the plain lint of the same files.
msOf() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
medianMs() { local runs=$1; shift; for _ in $(seq "$runs"); do msOf "$@"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
if [[ " $PARTS " == *" review "* ]]; then
# simulate: 1,000 clients x 5 attempts x 3 layers (a declared chain of three gRPC clients, 125 calls a request).
sdir=$WORK/simulate-chain
rm -rf "$sdir"; mkdir -p "$sdir"/{edge,mid,db}
for l in edge mid db; do
  printf '{"methodConfig": [{"name": [{"service": "%s.Api"}], "timeout": "30s", "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}\n' "$l" >"$sdir/$l/grpc_service_config.json"
done
printf 'layers:\n  - {name: edge, paths: ["edge/**"]}\n  - {name: mid, paths: ["mid/**"]}\n  - {name: db, paths: ["db/**"]}\n' >"$sdir/.retrylint.yaml"
(cd "$sdir" && git init -q . && git add -A && git -c user.email=b@example.com -c user.name=bench commit -qm base)
lintMs=$(cd "$sdir" && medianMs "$RUNS" "$RL" --no-cache --report layers .)
simMs=$(cd "$sdir" && medianMs "$RUNS" "$RL" simulate --no-cache --chain "edge > mid > db" --clients 1000 --svg /dev/null .)
echo "| simulate: 1,000 clients x 5 attempts x 3 layers | $RUNS | $simMs ms | lint of the same files: $lintMs ms | simulation: $((simMs - lintMs)) ms |" >>"$WORK/review-rows.md"
# review: the 1,000-file config corpus as a repository, a change to 3 of its retry configs.
first=$WORK/configs-$(echo $SIZES | awk '{print $1}')
[ -d "$first" ] || node "$ROOT/bench/gen.js" configs "$(echo $SIZES | awk '{print $1}')" "$first"
rdir=$WORK/review-repo
rm -rf "$rdir"; cp -r "$first" "$rdir"
(cd "$rdir" && git init -q . && git add -A && git -c user.email=b@example.com -c user.name=bench commit -qm base)
mapfile -t touched < <(cd "$rdir" && grep -rlE '"maxAttempts": *[0-9]|attempts: *[0-9]' --include='*.yaml' --include='*.json' . | sort | head -3)
for f in "${touched[@]}"; do (cd "$rdir" && sed -i -E 's/("maxAttempts": *|attempts: *)[0-9]+/\19/' "$f"); done
lintMs=$(cd "$rdir" && medianMs "$RUNS" "$RL" --no-cache "${touched[@]}")
reviewMs=$(cd "$rdir" && medianMs "$RUNS" "$RL" review --no-cache --base HEAD)
echo "| review: 3 changed files in a 1,000-file repository | $RUNS | $reviewMs ms | lint of the 3 files: $lintMs ms | beyond the lint: $((reviewMs - lintMs)) ms |" >>"$WORK/review-rows.md"
fi

# ---- report ------------------------------------------------------------------------------------
{
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| run | runs | wall s (median) | CPU s | peak MB | files/s | MB/s |"
  echo "|---|---|---|---|---|---|---|"
  cat "$WORK/rows.md"
  echo
  echo "Ratios (wall time):"
  for n in $SPECTRAL_SIZES; do
    [ -n "${WALL["configs $n: Spectral"]:-}" ] && echo "- configs $n: Spectral / retrylint -j1 = $(ratio "configs $n: Spectral" "configs $n: retrylint -j1")"
  done
  for n in ${SIZES_RUN-$SIZES}; do echo "- configs $n: retrylint -j1 / -j2 = $(ratio "configs $n: retrylint -j1" "configs $n: retrylint -j2")"; done
  set -- $SIZES
  [ $# -ge 2 ] && echo "- growth -j1: $1 -> $2 files: $(ratio "configs $2: retrylint -j1" "configs $1: retrylint -j1")"
  [ $# -ge 3 ] && echo "- growth -j1: $2 -> $3 files: $(ratio "configs $3: retrylint -j1" "configs $2: retrylint -j1")"
  if [[ " $PARTS " == *" cpp "* ]]; then
    echo "- C++: clang-tidy / retrylint -j1 = $(ratio "C++ $CPP_N TUs: clang-tidy-14 (1 check) -j1" "C++ $CPP_N TUs: retrylint -j1")"
    echo "- C++: retrylint -j1 / -j2 = $(ratio "C++ $CPP_N TUs: retrylint -j1" "C++ $CPP_N TUs: retrylint -j2")"
    echo "- C++ retry TUs: retrylint / clang++ -fsyntax-only = $(ratio "C++ retry TUs: retrylint -j1" "C++ retry TUs: clang++-14 -fsyntax-only -j1")"
  fi
  if [ -s "$WORK/review-rows.md" ]; then
    echo
    echo "| review and simulate | runs | wall (median) | the lint alone | the difference |"
    echo "|---|---|---|---|---|"
    cat "$WORK/review-rows.md"
  fi
} | tee "$WORK/results.md"
