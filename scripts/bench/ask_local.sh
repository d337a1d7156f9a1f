#!/usr/bin/env bash
# `verity ask --generator local` on examples/data, whole commands as a user
# runs them (process start, model loads, retrieval, generation), QUESTIONS x
# REPS times, each with the answer cache off; prints each wall time, p50 and
# p95, and how many answers were cited / degraded / "not enough evidence".
# Not part of CI.
#
#   scripts/bench/ask_local.sh                 # release binary (built if VERITY_BIN is unset)
#   REPS=5 VERITY_BIN=target/debug/verity scripts/bench/ask_local.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/common.sh
BIN=$(verity_bin)
REPS=${REPS:-3}
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
export VERITY_HOME="$HOME_DIR"
"$BIN" --quiet ingest examples/data >/dev/null
QUESTIONS=(
  "How is the fee of a forward computed?"
  "Why do many routing nodes set their base fee to zero?"
  "How long are answers cached?"
  "What does a fee rate strategy for a routing node look like?"
  "What is Verity?"
)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); binary $BIN"
times=()
cited=0; degraded=0; nee=0; n=0
for r in $(seq "$REPS"); do
  for q in "${QUESTIONS[@]}"; do
    start=$(date +%s.%N)
    out=$("$BIN" --quiet --json ask "$q" --generator local --no-cache)
    end=$(date +%s.%N)
    t=$(python3 -c "print(f'{$end - $start:.2f}')")
    times+=("$t")
    read -r c d e < <(printf '%s' "$out" | python3 -c 'import json,sys; a=json.load(sys.stdin); print(int(bool(a["citations"])), int(a["degraded"]), int(a["not_enough_evidence"]))')
    cited=$((cited + c)); degraded=$((degraded + d)); nee=$((nee + e)); n=$((n + 1))
    echo "$t s  cited=$c degraded=$d not_enough_evidence=$e  $q"
  done
done
printf '%s\n' "${times[@]}" | sort -n | awk -v n="$n" '{a[NR]=$1} END {p50=a[int((NR+1)/2)]; i=int(NR*0.95+0.999); if (i>NR) i=NR; printf "p50 %.2f s  p95 %.2f s  over %d asks\n", p50, a[i], NR}'
echo "cited $cited/$n, degraded $degraded/$n, not enough evidence $nee/$n"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
