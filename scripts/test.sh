#!/usr/bin/env bash
# README command 2: installs what is missing, then runs every test: native Catch2 (warnings as
# errors), the same under ASan+UBSan, a bounded libFuzzer run, Node tests of the WebAssembly module
# (parity with native), browser tests in Chromium, and the benchmark in quick mode.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
scripts/setup.sh

echo "== project checks (version, CI pinning, page modules)"
scripts/lint.sh

echo "== native build (-Wall -Wextra -Wpedantic -Werror) and unit tests"
GPUCALC_WERROR=ON scripts/build.sh
ctest --test-dir build/native --output-on-failure

echo "== calibration and generated docs are current"
# Refits the training model's constants on the published runs (leave-one-source-group-out) and checks
# that core/data/calibration.json, docs/VALIDATION.md and docs/SCHEMA.md hold what the code generates.
build/native/tools/gpucalc_calibrate tests/data/training_runs.json core/data/calibration.json --check
scripts/validation.sh --check
scripts/schema.sh --check

echo "== ASan + UBSan"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUCALC_WERROR=ON -DGPUCALC_SANITIZE=ON >/dev/null
cmake --build build/asan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build/asan --output-on-failure

echo "== fuzzing (libFuzzer, ${GPUCALC_FUZZ_RUNS:-150000} runs, fixed seed: the same inputs on every machine)"
CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUCALC_FUZZ=ON >/dev/null
cmake --build build/fuzz --target gpucalc_fuzz
rm -rf build/fuzz/corpus && mkdir -p build/fuzz/corpus
cp tests/fixtures/*.json tests/fixtures/invalid/*.json tests/fuzz/regressions/* build/fuzz/corpus/
# Inputs up to 64 KiB with a JSON dictionary: deep nesting (the red-team crashes began at ~5,500 levels,
# 11 KB) and nested claims are within reach of the mutator.
(cd build/fuzz && tests/fuzz/gpucalc_fuzz -seed=1 -runs="${GPUCALC_FUZZ_RUNS:-150000}" -max_len=65536 -timeout=10 \
  -dict=../../tests/fuzz/json.dict -print_final_stats=1 corpus 2>&1 | tail -n 8)

echo "== WebAssembly module (node)"
node --test tests/node/

echo "== browser (Chromium via playwright-core)"
node --test tests/browser/   # one file: its tests run one after another

echo "== benchmark (quick)"
node scripts/bench.mjs --quick
