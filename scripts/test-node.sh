#!/usr/bin/env bash
# Build the Node bindings (napi-rs; plain cargo build, debug profile, the
# shared library copied to node/verity.<platform>-<arch>.node), then type-check
# index.d.ts with a sample (tsc --noEmit) and run the tests (node --test).
#   scripts/test-node.sh [--build-only] [--release]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_ONLY=0
PROFILE=debug
CARGO_PROFILE=()
for a in "$@"; do
  case $a in
    --build-only) BUILD_ONLY=1 ;;
    --release) PROFILE=release; CARGO_PROFILE=(--release) ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done

echo "==> cargo build ($PROFILE)"
if [ "$PROFILE" = debug ]; then
  # The test build's selection: after `cargo nextest run --workspace` this
  # rebuilds nothing (a `-p` build would re-resolve features and recompile).
  cargo build --workspace --lib --bins --tests --examples
else
  cargo build -p verity-node "${CARGO_PROFILE[@]}"
fi
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')
case "$(uname -s)" in
  Darwin) LIB=libverity_node.dylib ;;
  MINGW*|MSYS*|CYGWIN*) LIB=verity_node.dll ;;
  *) LIB=libverity_node.so ;;
esac
PLATFORM=$(node -p 'process.platform + "-" + process.arch')
cp -f "$TARGET_DIR/$PROFILE/$LIB" "node/verity.$PLATFORM.node"
echo "built node/verity.$PLATFORM.node"
[ "$BUILD_ONLY" = 1 ] && exit 0

cd node
if [ ! -d node_modules/typescript ] || [ ! -d node_modules/@types/node ]; then
  echo "==> npm install"
  npm install --no-audit --no-fund --loglevel=error
fi
echo "==> tsc --noEmit"
npx --no-install tsc --noEmit -p tsconfig.json
echo "tsc OK"
echo "==> node --test"
# The tests' temporary homes go under one directory removed afterwards: a
# store still flushes its index when the process tears down, after the
# helpers' own clean-up has run.
VERITY_TEST_TMP=$(mktemp -d -t verity-node-tests.XXXXXX)
export VERITY_TEST_TMP
trap 'rm -rf "$VERITY_TEST_TMP"' EXIT
node --test test/
