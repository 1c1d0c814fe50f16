#!/usr/bin/env bash
# Regenerates the scenario table and the error-code table of docs/SCHEMA.md (`gpucalc schema --markdown`,
# `--error-codes`);
# `scripts/schema.sh --check` exits 1 when the committed file is not current.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build/native --target gpucalc >/dev/null
table=$(build/native/gpucalc schema --markdown)
codes=$(build/native/gpucalc schema --error-codes)
out=$(mktemp)
awk -v table="$table" -v codes="$codes" '
  /<!-- BEGIN generated scenario table -->/ { print; print table; skip = 1; next }
  /<!-- END generated scenario table -->/ { skip = 0 }
  /<!-- BEGIN generated error codes -->/ { print; print codes; skip = 1; next }
  /<!-- END generated error codes -->/ { skip = 0 }
  !skip { print }' docs/SCHEMA.md > "$out"
if [ "${1:-}" = "--check" ]; then
  if ! diff -q "$out" docs/SCHEMA.md >/dev/null; then echo "docs/SCHEMA.md is not current: run scripts/schema.sh" >&2; rm -f "$out"; exit 1; fi
  rm -f "$out"; echo "docs/SCHEMA.md current"
else
  mv "$out" docs/SCHEMA.md; echo "docs/SCHEMA.md updated"
fi
