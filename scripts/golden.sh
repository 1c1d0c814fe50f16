#!/usr/bin/env bash
# Writes every output of the native CLI for the fixtures, the published-run scenarios, the serving
# and fine-tuning figures and the catalog commands into DIR, one file each. A refactoring that must not
# change a number is checked by running it before and after and comparing: diff -r BEFORE AFTER.
# usage: scripts/golden.sh DIR [path/to/gpucalc]   (default build/native/gpucalc)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/golden.sh DIR [gpucalc]}
cli=${2:-build/native/gpucalc}
mkdir -p "$out"
for c in devices presets networks reality schema "schema --markdown" "schema --error-codes" --version; do
  # shellcheck disable=SC2086
  "$cli" $c >"$out/cmd-${c// /_}.json" 2>&1 || true
done
for f in tests/fixtures/*.json tests/fixtures/invalid/*.json; do
  n=$(basename "$f" .json)
  [ "$(dirname "$f")" = tests/fixtures/invalid ] && n="invalid-$n"
  "$cli" estimate "$f" >"$out/estimate-$n.json" 2>&1 || true
  # the search's own timings vary from run to run: left out
  "$cli" plan "$f" 2>&1 | grep -vE '"(plans_per_second|search_seconds|search_median_seconds)"' >"$out/plan-$n.json" || true
  "$cli" explain "$f" >"$out/explain-$n.json" 2>&1 || true
done
# Every scenario of the published-run tables, through the one-per-line entry point, with and without
# derivations (their text is written by the code that computes the figure).
node -e '
const fs = require("fs");
const rows = [];
for (const r of JSON.parse(fs.readFileSync("tests/data/training_runs.json")).runs) rows.push(r.scenario);
for (const r of JSON.parse(fs.readFileSync("tests/data/decentralized_runs.json")).runs) rows.push(r.scenario);
for (const s of rows) { console.log(JSON.stringify(s)); console.log(JSON.stringify({ ...s, explain: true })); }
' >"$out/scenarios.jsonl"
"$cli" estimate-lines <"$out/scenarios.jsonl" >"$out/estimate-lines.jsonl" 2>&1 || true
# Scenarios written to reach what the fixtures do not: serving options (speculative, disaggregated, MLA,
# EP, GGUF offload, SLO searches), fine-tuning setups, inverse questions, claims, mixed fleets.
"$cli" estimate-lines <tests/data/golden_scenarios.jsonl >"$out/estimate-lines-extra.jsonl" 2>&1 || true
echo "golden outputs written to $out ($(ls "$out" | wc -l) files)"
