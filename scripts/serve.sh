#!/usr/bin/env bash
# README command 1: install what is missing, build everything, serve the page on localhost.
# The built page also opens straight from disk: build/wasm/site/index.html.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
echo "gpucalc: open file://$PWD/build/wasm/site/index.html (works offline), or:"
exec node scripts/serve.mjs build/wasm/site "${PORT:-8000}"
