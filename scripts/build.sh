#!/usr/bin/env bash
# Builds the native CLI + tests (build/native) and the WebAssembly module + site (build/wasm/site).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Debian's emcc loads acorn from there
werror=${GPUCALC_WERROR:-ON}
cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUCALC_WERROR="$werror" >/dev/null
cmake --build build/native
emcmake cmake -S . -B build/wasm -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUCALC_WERROR="$werror" >/dev/null
cmake --build build/wasm
