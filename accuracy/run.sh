#!/usr/bin/env bash
# The real-world accuracy harness (for developers; not run by CI).
#
# Checks out every repository of accuracy/repos.tsv at its pinned commit, runs retrylint over the
# listed paths and writes one JSON report per repository to $OUT, then prints the per-rule summary
# (accuracy/summarise.js). Judging the findings is by hand: see docs/accuracy.md.
#
#   accuracy/run.sh                        all repositories
#   ONLY="istio kong-deck" accuracy/run.sh  some of them
#   RETRYLINT=build-bench/retrylint accuracy/run.sh
#   REPOS=accuracy/cpp-repos.tsv OUT=accuracy/.out-cpp accuracy/run.sh   the C++ code bases
#   POLICIES=1 …                           also list every retry policy found (for accuracy/recall.js)
#
# Sources: $ACCURACY_SRC (default accuracy/.src) holds one checkout per repository. A missing one is
# made from a local mirror when $ACCURACY_MIRRORS holds <owner>+<name>/repo (a bare git directory),
# else cloned from GitHub (network needed). Nothing is written outside $ACCURACY_SRC and $OUT.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=${ACCURACY_SRC:-$ROOT/accuracy/.src}
OUT=${OUT:-$ROOT/accuracy/.out}
RL=${RETRYLINT:-$ROOT/build/retrylint}
LIST=${REPOS:-$ROOT/accuracy/repos.tsv}
case $LIST in /*) ;; *) LIST=$PWD/$LIST ;; esac
case $RL in /*) ;; *) RL=$PWD/$RL ;; esac
[ -x "$RL" ] || { echo "accuracy: no retrylint at $RL (build first, or set RETRYLINT)" >&2; exit 2; }
mkdir -p "$SRC" "$OUT"

checkout() { # name repo commit
  local name=$1 repo=$2 commit=$3 dir=$SRC/$1
  if [ -f "$dir/.accuracy-commit" ] && [ "$(cat "$dir/.accuracy-commit")" = "$commit" ]; then return; fi
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  local mirror=${ACCURACY_MIRRORS:-}/${repo/\//+}/repo
  [ -d "$mirror/.git" ] && mirror=$mirror/.git # a mirror kept as a work tree
  if [ -n "${ACCURACY_MIRRORS:-}" ] && [ -d "$mirror" ]; then
    # A mirror may lack some large blobs: copy what it has, and list what it lacks.
    git --git-dir="$mirror" archive --format=tar "$commit" 2>/dev/null | tar -x -C "$dir.tmp" 2>/dev/null || {
      rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
      git --git-dir="$mirror" ls-tree -r -z --full-tree "$commit" | while IFS=$'\t' read -r -d '' meta file; do
        [[ $meta == 100* ]] || continue
        mkdir -p "$dir.tmp/$(dirname "$file")"
        git --git-dir="$mirror" cat-file blob "${meta##* }" >"$dir.tmp/$file" 2>/dev/null ||
          { rm -f "$dir.tmp/$file"; echo "$file" >>"$dir.tmp/.accuracy-missing"; }
      done
    }
  else
    git clone -q --filter=blob:none --no-checkout "https://github.com/$repo" "$dir.tmp/.git-clone"
    git -C "$dir.tmp/.git-clone" archive --format=tar "$commit" | tar -x -C "$dir.tmp"
    rm -rf "$dir.tmp/.git-clone"
  fi
  echo "$commit" >"$dir.tmp/.accuracy-commit"
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

while IFS=$'\t' read -r name repo commit paths _; do
  case $name in ''|'#'*) continue ;; esac
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  checkout "$name" "$repo" "$commit"
  IFS=, read -r -a parts <<<"$paths"
  start=$(date +%s%N)
  rc=0
  (cd "$SRC/$name" && "$RL" --no-cache --format json -o "$OUT/$name.json" "${parts[@]}" 2>/dev/null) || rc=$?
  end=$(date +%s%N)
  # The retry policies found (for recall: accuracy/recall.js), with POLICIES=1.
  if [ -n "${POLICIES:-}" ]; then
    (cd "$SRC/$name" && "$RL" --no-cache --report layers --format json -o "$OUT/$name.policies.json" "${parts[@]}" 2>/dev/null) || true
  fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$rc" "$(( (end - start) / 1000000 )) ms" "$repo@${commit:0:8}" >"$OUT/$name.status"
  echo "accuracy: $name exit $rc" >&2
done <"$LIST"

node "$ROOT/accuracy/summarise.js" "$OUT"
