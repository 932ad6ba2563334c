#!/usr/bin/env bash
# Tests the release packages for real, in clean Debian 12 roots made by debootstrap (no container
# engine needed), running the Dockerfile's two steps:
#   1. build root: a minimal Debian 12 with nothing installed; the sources copied in (what the
#      Dockerfile's build stage copies, .dockerignore applied); scripts/package.sh run there.
#   2. run root: another minimal Debian 12; packaging/image-setup.sh run there (the final image
#      stage: the .deb through apt, git, the non-root user). Then, as that user:
#        - the installed retrylint on every fixture: the same findings and exit code as the build
#          tree (build/retrylint, from scripts/setup.sh);
#        - no LLVM, Clang or yaml-cpp package installed;
#        - the .tar.gz unpacked into an empty directory and run from another directory, with the C++
#          standard library headers installed, on every fixture and on a C++ file that includes
#          standard headers: the same findings as the build tree, and the file read with full types.
# Needs root (debootstrap, chroot, mounts) and network access to deb.debian.org.
# Usage: scripts/test-install.sh [MIRROR]     Takes about 6 minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
mirror="${1:-http://deb.debian.org/debian}"

if [ "$(id -u)" -ne 0 ]; then
  exec sudo "$0" "$@"
fi
if [ ! -x build/retrylint ]; then
  echo "test-install: build/retrylint is missing: run scripts/setup.sh first (the build tree is the reference)" >&2
  exit 2
fi
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap; }

work="$(mktemp -d /var/tmp/retrylint-install.XXXXXX)"
mounts=()
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
step() { echo "test-install: $*" >&2; }
fail() { echo "test-install: FAIL: $*" >&2; exit 1; }

step "debootstrap: a minimal Debian 12 root"
debootstrap --variant=minbase bookworm "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap failed"; }

# A copy of the base with /proc, /dev and the host's DNS, for chroot.
newroot() {
  cp -a "$work/base" "$work/$1"
  mount -t proc proc "$work/$1/proc" && mounts+=("$work/$1/proc")
  mount --rbind /dev "$work/$1/dev" && mounts+=("$work/$1/dev")
  cp /etc/resolv.conf "$work/$1/etc/resolv.conf"
}
# The files the Dockerfile's `COPY . .` takes: the checkout without what .dockerignore leaves out.
copysources() {
  mkdir -p "$1"
  git -C "$repo" ls-files -z --cached --others --exclude-standard |
    grep -zvE '^(build|build-[^/]*|dist|accuracy/\.src|accuracy/\.out|bench/out)/' |
    (cd "$repo" && tar --null -T - -cf -) | tar -xf - -C "$1"
}

step "build root: scripts/package.sh (the Dockerfile's build stage)"
newroot build
copysources "$work/build/src"
chroot "$work/build" /bin/bash -c 'cd /src && scripts/package.sh' >"$work/package.log" 2>&1 ||
  { tail -40 "$work/package.log" >&2; fail "scripts/package.sh failed in a clean Debian 12 root"; }
ls "$work"/build/src/dist/retrylint_*_amd64.deb "$work"/build/src/dist/retrylint-*-linux-x86_64.tar.gz >/dev/null

step "run root: packaging/image-setup.sh (the Dockerfile's final stage)"
newroot run
mkdir -p "$work/run/tmp/dist"
cp "$work"/build/src/dist/* "$work/run/tmp/dist/"
cp packaging/image-setup.sh "$work/run/tmp/"
chroot "$work/run" /bin/sh /tmp/image-setup.sh /tmp/dist >"$work/image.log" 2>&1 ||
  { tail -40 "$work/image.log" >&2; fail "packaging/image-setup.sh failed"; }
copysources "$work/run/src"
chmod -R a+rX "$work/run/src"

mkdir -p "$work/run/src/std"
cat >"$work/run/src/std/retry.cpp" <<'CPP'
#include <chrono>
#include <string>
#include <thread>
#include <vector>
int send(const std::vector<std::string> &batch);
int flush(const std::vector<std::string> &batch) {
  for (;;) {
    if (send(batch) == 0) return 0;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}
CPP
chmod -R a+rX "$work/run/src/std"
installed="$(chroot "$work/run" dpkg-query -W -f='${Package}\n' | grep -E 'llvm|clang|yaml-cpp' || true)"
[ -z "$installed" ] || fail "the run root has LLVM, Clang or yaml-cpp packages: $installed"

# The reference: the build tree on the same fixtures, from the checkout's root.
reference() { (cd "$repo" && { build/retrylint --no-cache "$@" 2>/dev/null && rc=0 || rc=$?; echo "exit $rc"; }); }
# As the image's user, from /src (where the image mounts the checkout).
inroot() { chroot --userspec=10001:10001 "$work/run" /usr/bin/env HOME=/home/retrylint /bin/sh -c "cd /src && $1" 2>/dev/null; }
compare() { # NAME EXPECTED ACTUAL
  if ! diff -u "$2" "$3" >"$work/diff.txt"; then
    head -40 "$work/diff.txt" >&2
    fail "$1: findings differ from the build tree's"
  fi
  step "ok: $1 ($(grep -c ': \(error\|warning\|note\):' "$2") findings, $(tail -1 "$2"))"
}

reference fixtures >"$work/expected.txt"
inroot 'retrylint --no-cache fixtures; echo "exit $?"' >"$work/deb.txt"
compare "the .deb, installed by apt, as uid 10001, on fixtures/" "$work/expected.txt" "$work/deb.txt"
[ "$(inroot 'retrylint --version')" = "$(build/retrylint --version)" ] || fail "--version differs"

# Without the C++ standard headers the file is read with partial types, and says so: the full-types
# check below can fail.
inroot "cd std && retrylint --no-cache --format json retry.cpp" >"$work/std-partial.json" || true
[[ "$(tr -d ' \n' <"$work/std-partial.json")" == *'"cpp_files_without_full_types":["retry.cpp"]'* ]] ||
  { cat "$work/std-partial.json" >&2; fail "std/retry.cpp was read with full types without standard headers installed?"; }

step "run root: the .tar.gz in an empty directory, C++ standard headers installed (libstdc++-12-dev)"
chroot "$work/run" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libstdc++-12-dev' \
  >"$work/libstdcxx.log" 2>&1 || { tail -20 "$work/libstdcxx.log" >&2; fail "could not install libstdc++-12-dev"; }
mkdir -p "$work/run/opt/empty"
tar -xzf "$work"/run/tmp/dist/retrylint-*-linux-x86_64.tar.gz -C "$work/run/opt/empty"
chmod -R a+rX "$work/run/opt/empty"
tarbin="$(cd "$work/run" && ls -d opt/empty/retrylint-*/bin/retrylint)"
inroot "/$tarbin --no-cache fixtures; echo \"exit \$?\"" >"$work/tar.txt"
compare "the .tar.gz on fixtures/" "$work/expected.txt" "$work/tar.txt"

mkdir -p "$repo/build/test-install" && cp "$work/run/src/std/retry.cpp" "$repo/build/test-install/"
(cd "$repo/build/test-install" && { "$repo/build/retrylint" --no-cache retry.cpp 2>/dev/null && rc=0 || rc=$?; echo "exit $rc"; }) >"$work/std-expected.txt"
inroot "cd std && /$tarbin --no-cache retry.cpp; echo \"exit \$?\"" >"$work/std.txt"
compare "the .tar.gz on a C++ file with standard headers" "$work/std-expected.txt" "$work/std.txt"
grep -q "RL201" "$work/std.txt" || fail "the unbounded retry in std/retry.cpp was not reported"
inroot "cd std && /$tarbin --no-cache --format json retry.cpp" >"$work/std.json" || true
[[ "$(tr -d ' \n' <"$work/std.json")" == *'"cpp_files_without_full_types":[]'* ]] ||
  { cat "$work/std.json" >&2; fail "the tarball did not read std/retry.cpp with full types (standard headers or Clang's builtin headers not found)"; }

step "all checks passed"
