#!/usr/bin/env bash
# `verity ask --generator local` on examples/data, whole commands as a user
# runs them (process start, model loads, retrieval, generation), QUESTIONS x
# REPS times, each with the answer cache off; prints each wall time with
# where the local generation spent it (prompt tokens and ms, generated tokens
# and ms, finish: the generator's `local generation` event), p50 and p95, and
# how many answers were cited / degraded / "not enough evidence" / answered
# by the local model itself, and how many answer sentences the answer check
# (the Judge) found supported by what they cite. Not part of CI.
#
#   scripts/bench/ask_local.sh                 # release binary (built if VERITY_BIN is unset)
#   REPS=5 VERITY_BIN=target/debug/verity scripts/bench/ask_local.sh
#   QUESTIONS_FILE=scripts/bench/ask_local_heldout.txt scripts/bench/ask_local.sh
#
# The five questions below are the ones the local answer format was tuned
# on; scripts/bench/ask_local_heldout.txt (one question a line) was written
# and committed before tuning and is only scored, never tuned on.
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
if [ -n "${QUESTIONS_FILE:-}" ]; then
  mapfile -t QUESTIONS < <(grep -v '^[[:space:]]*$' "$QUESTIONS_FILE")
fi
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); binary $BIN"
times=()
cited=0; degraded=0; nee=0; local=0; n=0; checked=0; supported=0
LOG=$(mktemp)
trap 'rm -rf "$HOME_DIR" "$LOG"' EXIT
for r in $(seq "$REPS"); do
  for q in "${QUESTIONS[@]}"; do
    start=$(date +%s.%N)
    out=$(RUST_LOG=verity_llm=info "$BIN" --quiet --json ask "$q" --generator local --no-cache 2>"$LOG")
    end=$(date +%s.%N)
    t=$(python3 -c "print(f'{$end - $start:.2f}')")
    times+=("$t")
    read -r c d e l k s < <(printf '%s' "$out" | python3 -c 'import json,sys; a=json.load(sys.stdin); v=a.get("verification") or {}; print(int(bool(a["citations"])), int(a["degraded"]), int(a["not_enough_evidence"]), int(a["model"].startswith("SmolLM2")), v.get("checked", 0), v.get("supported", 0))')
    [ -n "${SHOW_ANSWERS:-}" ] && printf '%s' "$out" | python3 -c 'import json,sys; a=json.load(sys.stdin); print("   ", a["model"], repr(a["text"]))'
    gen=$(python3 - "$LOG" <<'PY'
import re, sys
line = next((l for l in open(sys.argv[1]) if "local generation" in l), "")
f = dict(re.findall(r"(\w+)=(\S+)", re.sub(r"\x1b\[[0-9;]*m", "", line)))
print(f"prompt {f.get('prompt_tokens', '?')} tok {f.get('prompt_ms', '?')} ms, "
      f"generated {f.get('tokens', '?')} tok {f.get('generation_ms', '?')} ms, finish {f.get('finish', '-')}")
PY
)
    cited=$((cited + c)); degraded=$((degraded + d)); nee=$((nee + e)); local=$((local + l)); n=$((n + 1))
    checked=$((checked + k)); supported=$((supported + s))
    echo "$t s  cited=$c degraded=$d not_enough_evidence=$e local=$l supported=$s/$k  [$gen]  $q"
  done
done
printf '%s\n' "${times[@]}" | sort -n | awk -v n="$n" '{a[NR]=$1} END {p50=a[int((NR+1)/2)]; i=int(NR*0.95+0.999); if (i>NR) i=NR; printf "p50 %.2f s  p95 %.2f s  over %d asks\n", p50, a[i], NR}'
echo "cited $cited/$n, degraded $degraded/$n, not enough evidence $nee/$n, answered by the local model $local/$n"
echo "answer sentences the answer check supports: $supported/$checked"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
