#!/usr/bin/env bash
# The release procedure (README, "Releases"): checks, packages, tag. Run on a clean checkout of
# main, as root or with sudo (scripts/test-install.sh needs it), once CHANGELOG.md's [Unreleased]
# section has been renamed to the new version and CMakeLists.txt's project(VERSION) set to it.
# Usage: scripts/release.sh X.Y.Z
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:?usage: scripts/release.sh X.Y.Z}"
die() { echo "release: $*" >&2; exit 1; }

[ -z "$(git status --porcelain)" ] || die "the work tree is not clean"
[ "$(git rev-parse --abbrev-ref HEAD)" = main ] || die "releases are made from main"
git rev-parse -q --verify "refs/tags/v$version" >/dev/null && die "v$version is already tagged"
grep -q "^project(retrylint VERSION $version " CMakeLists.txt || die "CMakeLists.txt's project(VERSION) is not $version"
grep -q "^## \[$version\] - [0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}$" CHANGELOG.md || die "CHANGELOG.md has no '## [$version] - DATE' section"

# 1. Everything CI runs: the suite (which checks that action.yml, the hooks, the docs and the
#    changelog name this version), the sanitizer pass and the fuzz pass.
CI=true bash .ci/run
# 2. The packages, and the packages tested in clean Debian 12 roots (the Dockerfile's steps).
scripts/package.sh
scripts/test-install.sh
(cd dist && sha256sum "retrylint_${version}_amd64.deb" "retrylint-${version}-linux-x86_64.tar.gz" > SHA256SUMS)
# 3. The tag the pre-commit hooks and the action are pinned to.
git tag -a "v$version" -m "retrylint $version"

cat <<NEXT
release: v$version tagged; dist/ holds the packages and SHA256SUMS. To publish:
  git push origin v$version
  gh release create v$version dist/retrylint_${version}_amd64.deb dist/retrylint-${version}-linux-x86_64.tar.gz dist/SHA256SUMS --notes-file <(sed -n '/^## \\[$version\\]/,/^## \\[/p' CHANGELOG.md | sed '1d;\$d')
  docker build -t ghcr.io/OWNER/retrylint:$version -t ghcr.io/OWNER/retrylint:latest . && docker push --all-tags ghcr.io/OWNER/retrylint
NEXT
