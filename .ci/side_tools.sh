#!/usr/bin/env bash
# Format-drift check: install the current inspect-ai and lm-eval in side environments, regenerate their
# fixture logs with the generators committed beside the fixtures, and run the real-tool importer tests on
# the fresh logs (benchsift must reproduce each tool's own numbers); then the export round trip: a suite
# exported to both tools, run by them, estimated from their logs. Needs .venv (made by .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
python3 -m venv "$work/inspect"
"$work/inspect/bin/pip" install -q "inspect-ai>=0.3.206"
(cd "$work" && INSPECT_LOG_LEVEL=warning "$work/inspect/bin/python" "$OLDPWD/tests/fixtures/io/inspect/real/generate.py" "$work/inspect-logs")
python3 -m venv "$work/lmeval"
"$work/lmeval/bin/pip" install -q "lm-eval>=0.4.5"
(cd "$work" && "$work/lmeval/bin/python" "$OLDPWD/tests/fixtures/io/lm_eval/real/generate.py" "$work/lmeval-logs" > "$work/lmeval.log" 2>&1) \
  || { tail -40 "$work/lmeval.log"; exit 1; }
echo "side tools: $(cat "$work/inspect-logs/VERSION"), $(cat "$work/lmeval-logs/VERSION"); set up in $(( $(date +%s) - start )) s"
# the new-model loop: compress -> export -> both harnesses run the export -> estimate from their logs
rt="$work/roundtrip"
.venv/bin/python tests/fixtures/roundtrip/make_suite.py "$rt"
(cd "$work" && INSPECT_LOG_LEVEL=warning "$work/inspect/bin/python" "$OLDPWD/tests/fixtures/roundtrip/run_inspect.py" \
  "$rt" "$rt/logs/inspect" > "$work/rt-inspect.log" 2>&1) || { tail -40 "$work/rt-inspect.log"; exit 1; }
(cd "$work" && "$work/lmeval/bin/python" "$OLDPWD/tests/fixtures/roundtrip/run_lm_eval.py" \
  "$rt" "$rt/logs/lm-eval" > "$work/rt-lmeval.log" 2>&1) || { tail -40 "$work/rt-lmeval.log"; exit 1; }
echo "round trip: $(cat "$rt/logs/inspect/VERSION"), $(cat "$rt/logs/lm-eval/VERSION"); done at $(( $(date +%s) - start )) s"
BENCHSIFT_INSPECT_LOGS="$work/inspect-logs" BENCHSIFT_LM_EVAL_LOGS="$work/lmeval-logs" BENCHSIFT_ROUNDTRIP="$rt" \
  .venv/bin/python -m pytest -q -p no:cacheprovider tests/io/test_inspect_real.py tests/io/test_lm_eval_real.py \
  tests/compression/test_export_roundtrip.py
