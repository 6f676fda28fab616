#!/usr/bin/env bash
# Issue 31's protocol on every panel, in parallel: random 60/40 splits (seeds 0-9) and strongest-40 % splits
# (seeds 0-2), each seed and split its own single-threaded process of bench_estimate_peers.py, then merged
# per split. Same seeds, same numbers as running them one by one (the merge pools per-seed files).
#
#   bash benchmarks/run_estimate_peers.sh PANEL_DIR REFERENCE_DIR OUT_DIR [panel ...]
#
# PANEL_DIR holds <panel>.parquet (default panels: ai2d mmt mmmu zeroeval_math zeroeval_crux zeroeval_gsm);
# REFERENCE_DIR is ../shared/reference (tinybench_ref.py). Jobs run ${NP:-$(nproc)} at a time, for at most
# ${BUDGET:-36000} s; SEEDS / STRONG_SEEDS override the seeds of each split (empty: none of that split).
# Writes OUT_DIR/<panel>_<split>_<seed>.json and OUT_DIR/all_<split>.txt.
set -u
PANELS_DIR=$1 REFERENCE=$2 OUT_DIR=$3
shift 3
PANELS=${*:-ai2d mmt mmmu zeroeval_math zeroeval_crux zeroeval_gsm}
PY=${PY:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
mkdir -p "$OUT_DIR"
jobs=$(mktemp)
for p in $PANELS; do  # the panels in the order given: put the slow ones first so that the waves pack
  for s in ${SEEDS-0 1 2 3 4 5 6 7 8 9}; do echo "$p random $s" >> "$jobs"; done
  for s in ${STRONG_SEEDS-0 1 2}; do echo "$p strongest $s" >> "$jobs"; done
done
START=$(date +%s)
export PY HERE PANELS_DIR REFERENCE OUT_DIR
timeout "${BUDGET:-36000}" xargs -P "${NP:-$(nproc)}" -L 1 sh -c '"$PY" "$HERE/bench_estimate_peers.py" \
  --panel "$PANELS_DIR/$0.parquet" --reference "$REFERENCE" --seeds 1 --seed-start "$2" --splits "$1" \
  --selector estimate --json --json-out "$OUT_DIR/$0_$1_$2.json" > /dev/null 2> "$OUT_DIR/$0_$1_$2.err" \
  || echo "FAILED $0 $1 $2: $(tail -2 "$OUT_DIR/$0_$1_$2.err")"' < "$jobs"
echo "elapsed $(( $(date +%s) - START )) s; jobs done: $(ls "$OUT_DIR"/*.json 2>/dev/null | wc -l) of $(wc -l < "$jobs")"
rm -f "$jobs"
for sp in random strongest; do
  files=$(ls "$OUT_DIR"/*_"$sp"_*.json 2>/dev/null) || continue
  # shellcheck disable=SC2086  # the file names are ours: <panel>_<split>_<seed>.json
  "$PY" "$HERE/bench_estimate_peers.py" --merge $files > "$OUT_DIR/all_$sp.txt" 2>&1
  tail -4 "$OUT_DIR/all_$sp.txt"
done
