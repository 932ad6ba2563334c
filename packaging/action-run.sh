#!/usr/bin/env bash
# The GitHub Action's step (action.yml): runs the retrylint image over the workspace as the runner's
# user, so the files it writes (SARIF) belong to the job. Inputs arrive in RETRYLINT_* variables.
# RETRYLINT_IMAGE overrides the image (tests use it; so can a mirror).
set -euo pipefail
set -f   # paths and options are split on blanks, never globbed
workspace="${GITHUB_WORKSPACE:-$PWD}"
image="${RETRYLINT_IMAGE:-ghcr.io/OWNER/retrylint:${RETRYLINT_VERSION:?}}"
read -r -a paths <<<"$(printf '%s' "${RETRYLINT_PATHS:-.}" | tr '\n' ' ')"
read -r -a extra <<<"${RETRYLINT_ARGS:-}"
[ "${#paths[@]}" -gt 0 ] || paths=(.)
common=()
[ -z "${RETRYLINT_DIFF:-}" ] || common+=(--diff "$RETRYLINT_DIFF")
common+=("${extra[@]}")

retrylint() {
  docker run --rm --user "$(id -u):$(id -g)" --volume "$workspace:/src" --workdir /src \
    --env GITHUB_ACTIONS --env NO_COLOR "$image" "$@"
}

if [ -n "${RETRYLINT_SARIF:-}" ]; then
  # Findings (exit 1) still give a report to upload; an analysis or usage error (2) fails the step.
  status=0
  retrylint --format sarif -o "$RETRYLINT_SARIF" "${common[@]}" -- "${paths[@]}" || status=$?
  [ "$status" -le 1 ] || exit "$status"
  echo "sarif-file=$RETRYLINT_SARIF" >>"${GITHUB_OUTPUT:-/dev/null}"
fi
retrylint --format "${RETRYLINT_FORMAT:-github}" --fail-on "${RETRYLINT_FAIL_ON:-warning}" "${common[@]}" -- "${paths[@]}"
