#!/usr/bin/env bash
# The embedder's NEON integer kernels, checked under emulation: cross-build
# verity-embed's unit tests for aarch64 and run them with qemu-user. Those
# tests compare each SIMD kernel with the portable loop bit for bit, and check
# that the NEON kernel is the one running.
#
# Installs what it needs when missing and it can (Debian's
# gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user; rustup's
# rust-std for aarch64). When it cannot, it says SKIPPED and exits 0, unless
# VERITY_REQUIRE_AARCH64=1. Speed under emulation means nothing: this checks
# the integers only.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=aarch64-unknown-linux-gnu

skip() {
  if [ "${VERITY_REQUIRE_AARCH64:-0}" = 1 ]; then
    echo "VERITY_REQUIRE_AARCH64=1 but $1" >&2
    exit 1
  fi
  echo "# SKIPPED: aarch64 kernels under qemu: $1"
  exit 0
}

if ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || ! command -v qemu-aarch64 >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
    || skip "needs aarch64-linux-gnu-gcc and qemu-aarch64 (Debian: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)"
  echo "==> cross compiler and qemu-user (Debian)"
  PKGS=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
  apt-get install -y -qq "${PKGS[@]}" >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq "${PKGS[@]}" >/dev/null; } \
    || skip "cannot install ${PKGS[*]}"
fi
if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
  echo "==> rust-std for $TARGET"
  rustup target add "$TARGET" >/dev/null 2>&1 || skip "rustup cannot add $TARGET"
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
echo "==> verity-embed unit tests on $TARGET (qemu-user)"
# A second build of verity-embed's dependencies, for another architecture:
# unoptimised and without debug info it compiles in a fraction of the time,
# and the unit tests are small. gemm's half-precision kernels only assemble
# when optimised (their inline asm needs the fp16 feature of the function
# they are inlined into).
cargo test --quiet --target "$TARGET" -p verity-embed --lib \
  --config 'profile.dev.package."*".opt-level=0' \
  --config 'profile.dev.package.gemm-f16.opt-level=2' \
  --config 'profile.dev.package.gemm-common.opt-level=2' \
  --config 'profile.dev.debug=false'

