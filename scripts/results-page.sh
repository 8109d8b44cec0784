#!/usr/bin/env bash
# The runs behind docs/results: every method on the first LIMIT seeded claims of `countries` and
# `halueval-qa`, then the report over the claims that every method has finished.
#
#   scripts/results-page.sh run [LIMIT]   # default 50; resumable: re-run (or raise LIMIT) to go on
#   scripts/results-page.sh report        # re-summarise on the common claims, write docs/results
#
# Each dataset runs in its own process with one llama.cpp thread, so both datasets advance together (for
# prompt evaluation alone one 2-thread process is faster: benchmarks/embedded_model.py). Each process has its own data directory,
# because Milvus Lite serves one process per database. LIMIT grows in steps of STEP claims for every
# method in turn, so an interrupted run leaves all methods on nearly the same claims.
# Environment: LLM (default llama-cpp:builtin), RUNS (default runs/results-page), STEP (default 5),
# REPORT (default docs/results).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-runs/results-page}
LLM=${LLM:-llama-cpp:builtin}
STEP=${STEP:-5}
METHODS=(single cot madke react mad tool-mad vote)
DATASETS=(countries halueval-qa)
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1 FACTDEBATE_LLAMA_THREADS=1

prepare() {  # the built-in corpus index, built once and copied for the second process
  local first="$RUNS/data-${DATASETS[0]}"
  FACTDEBATE_DATA_DIR="$first" .venv/bin/python -c \
    "from factdebate.corpus.indexing import ensure_builtin_indexed; ensure_builtin_indexed()"
  for ds in "${DATASETS[@]:1}"; do
    [ -d "$RUNS/data-$ds" ] || { mkdir -p "$RUNS/data-$ds"; cp -r "$first/milvus.db" "$first/tantivy" \
      "$first/indexed.json" "$RUNS/data-$ds/"; }
  done
}

run_dataset() {
  local ds=$1 limit=$2 n m
  for ((n = STEP; n < limit + STEP; n += STEP)); do
    ((n > limit)) && n=$limit
    for m in "${METHODS[@]}"; do
      echo "== $(date +%T) $ds $m limit $n"
      FACTDEBATE_DATA_DIR="$RUNS/data-$ds" .venv/bin/factdebate eval --method "$m" --dataset "$ds" \
        --limit "$n" --seed 0 --concurrency 1 --llm "$LLM" --output "$RUNS/$ds/$m" 2>&1 | tail -1
    done
  done
}

common_n() {  # claims finished by every method of one dataset
  .venv/bin/python - "$RUNS/$1" "${METHODS[@]}" <<'PY'
import sys
from pathlib import Path
from factdebate.run.batch import finished_ids
root = Path(sys.argv[1])
print(min(len(finished_ids(root / m / "results.jsonl")) for m in sys.argv[2:]))
PY
}

case "${1:-}" in
  run)
    mkdir -p "$RUNS"
    prepare
    for ds in "${DATASETS[@]}"; do run_dataset "$ds" "${2:-50}" > "$RUNS/$ds.log" 2>&1 & done
    echo "running; progress in $RUNS/*.log" >&2
    wait
    ;;
  report)
    dirs=()
    for ds in "${DATASETS[@]}"; do
      n=$(common_n "$ds")
      echo "$ds: $n claims finished by every method" >&2
      for m in "${METHODS[@]}"; do
        FACTDEBATE_DATA_DIR="$RUNS/data-$ds" .venv/bin/factdebate eval --method "$m" --dataset "$ds" \
          --limit "$n" --seed 0 --llm "$LLM" --output "$RUNS/$ds/$m" 2>&1 | tail -1
        dirs+=("$RUNS/$ds/$m")
      done
    done
    .venv/bin/factdebate report "${dirs[@]}" --output "${REPORT:-docs/results}"
    ;;
  *) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
