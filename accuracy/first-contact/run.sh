#!/bin/bash
# First contact: run retrylint on a set of code bases checked out by their repos file.
# usage: accuracy/first-contact/run.sh REPOS_TSV SRC_DIR OUT_DIR [RETRYLINT]
# REPOS_TSV: name<TAB>owner/repo<TAB>commit<TAB>paths(comma-separated)<TAB>what; SRC_DIR/<name> holds
# the checkout of those paths at that commit (git archive COMMIT PATHS | tar -x). One JSON report
# per code base in OUT_DIR (<name>.json, <name>.err, <name>.status with the exit code).
set -u
repos=$1; src=$2; out=$3; bin=${4:-retrylint}
mkdir -p "$out"
out=$(cd "$out" && pwd)
grep -v '^#' "$repos" | while IFS=$'\t' read -r name repo commit paths what; do
  [ -z "$name" ] && continue
  IFS=, read -ra ps <<< "$paths"
  (cd "$src/$name" && "$bin" --format json "${ps[@]}" > "$out/$name.json" 2> "$out/$name.err"; echo "$name $?" > "$out/$name.status")
done
