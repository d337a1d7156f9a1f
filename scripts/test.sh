#!/usr/bin/env bash
# Run Verity's whole test suite: Rust (unit, integration, doc tests), then the
# Python and Node bindings when their toolchains are present.
# Installs what the tests need first (local models, Redis with its modules),
# caching downloads under ~/.cache/verity.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> models"
scripts/fetch-models.sh
if [ -x scripts/redis.sh ]; then
  echo "==> redis"
  scripts/redis.sh install >/dev/null
fi

# Headless Chromium renders the HTML reports in the verification tests.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "==> chromium (Debian)"
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi

# llama.cpp (verity-llm's `llama-cpp` feature, on in the `verity` binary) is built
# from the llama-cpp-sys-2 crate's sources: CMake, and libclang for its bindings.
if { ! command -v cmake >/dev/null 2>&1 || ! ldconfig -p 2>/dev/null | grep -q 'libclang'; } \
  && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "==> cmake, libclang (Debian)"
  apt-get update -qq && apt-get install -y -qq cmake libclang-dev >/dev/null
fi

if ! command -v cargo-nextest >/dev/null 2>&1; then
  cargo install --locked cargo-nextest
fi

echo "==> rust tests"
cargo nextest run --workspace --no-fail-fast --failure-output final
cargo test --workspace --doc --quiet
# Optional features no default build turns on are compiled too, so that
# they cannot rot unseen (`otlp` once stopped compiling that way).
echo "==> optional features"
cargo check --quiet -p verity-server --features otlp

for suite in scripts/check-deploy.sh scripts/check-packages.sh scripts/test-server.sh scripts/test-security.sh scripts/test-python.sh scripts/test-node.sh scripts/test-mcp.sh scripts/test-aarch64.sh; do
  if [ -x "$suite" ]; then
    echo "==> $suite"
    "$suite"
  fi
done

# Fuzz targets (fuzz/, outside the workspace), bounded: FUZZ_SECS per target.
echo "==> scripts/fuzz.sh ${FUZZ_SECS:-30}"
scripts/fuzz.sh "${FUZZ_SECS:-30}"
