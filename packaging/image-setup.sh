#!/bin/sh
# The final stage of the Dockerfile, as a script so scripts/test-install.sh can run it in a clean
# Debian 12 root: installs the .deb from DIST (apt resolves its Depends:), git for --diff, and the
# non-root user the image runs as. Usage: image-setup.sh DIST
set -eu
dist="$1"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git "$dist"/retrylint_*_amd64.deb
rm -rf /var/lib/apt/lists/*
# uid 10001: the image's USER; pre-commit and the GitHub Action run it as the caller's uid instead.
useradd --uid 10001 --user-group --create-home --shell /usr/sbin/nologin retrylint
# The checkout is mounted at /src and belongs to another uid: let --diff's git read it. retrylint
# runs git with external diff, textconv and fsmonitor disabled, so the repository's config cannot
# make git run a program.
git config --system --add safe.directory /src
retrylint --version
