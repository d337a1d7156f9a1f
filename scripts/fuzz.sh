#!/usr/bin/env bash
# Run the fuzz targets of fuzz/ (cargo-fuzz, libFuzzer) for a bounded time
# each, starting from the committed seeds (fuzz/seeds/<target>) plus the
# corpus grown by earlier runs (fuzz/corpus/<target>, not committed).
#
#   scripts/fuzz.sh              # every target, 60 s each (CI)
#   scripts/fuzz.sh 1200 verify_text   # one target, 20 minutes
#
# libFuzzer needs nightly compiler flags; RUSTC_BOOTSTRAP=1 lets the stable
# toolchain accept them. A crash leaves its input in fuzz/artifacts/<target>/
# and fails the run. Prints executions and coverage per target.
set -euo pipefail
cd "$(dirname "$0")/.."

SECS="${1:-60}"
shift || true
TARGETS=("$@")
[ "${#TARGETS[@]}" -gt 0 ] || TARGETS=(verify_text watch_score ingest_text)

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
export RUSTC_BOOTSTRAP=1
# Debug info is not needed to report a crash's input; the CI settings of the
# main build (no incremental cache) apply here too.
export CARGO_INCREMENTAL=0

cargo fuzz build -O --fuzz-dir fuzz

status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log="$(mktemp)"
  # -timeout: one input taking longer than 10 s is a finding (runaway work);
  # -rss_limit_mb: so is one using more than 2 GiB.
  if ! cargo fuzz run -O --fuzz-dir fuzz "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
      -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      > "$log" 2>&1; then
    status=1
    echo "== $t: FINDING" >&2
    grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -20 >&2
  fi
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  echo "== $t: $runs executions in ${SECS}s, coverage $cov edges, corpus $(ls "fuzz/corpus/$t" | wc -l) inputs"
  rm -f "$log"
done
exit "$status"
