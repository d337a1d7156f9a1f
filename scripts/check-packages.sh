#!/usr/bin/env bash
# What the registries would receive, without publishing (docs/packaging.md):
# every published crate packages in dependency order against crates.io plus
# the crates packaged before it; the npm package holds both entry points; the
# Python distribution is `verity-ai`.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> cargo publish --workspace --dry-run --no-verify"
cargo publish --workspace --dry-run --no-verify --allow-dirty --quiet \
  --exclude verity-store-contract --exclude verity-testkit --exclude verity-benches \
  --exclude verity-examples --exclude verity-node --exclude verity-python
echo "crates OK"

echo "==> npm pack --dry-run"
files=$(cd node && npm pack --dry-run --json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const p=JSON.parse(s)[0];if(p.name!=="verity-ai")throw new Error("npm name "+p.name);console.log(p.files.map(f=>f.path).join(" "))})')
for f in index.js index.mjs index.d.ts index.d.mts package.json; do
  case " $files " in *" $f "*) ;; *) echo "npm package lacks $f: $files" >&2; exit 1 ;; esac
done
echo "npm OK: $files"

echo "==> python/pyproject.toml"
python3 - <<'PY'
import tomllib
p = tomllib.load(open("python/pyproject.toml", "rb"))
assert p["project"]["name"] == "verity-ai", p["project"]["name"]
assert p["tool"]["maturin"]["module-name"] == "verity._verity"
print("python OK: verity-ai, import verity")
PY
