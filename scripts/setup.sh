#!/usr/bin/env bash
# Installs what gpucalc needs on Debian 12 (idempotent): compilers, Emscripten, nlohmann/json,
# Catch2, Chromium, xz (compresses the embedded wasm), Node.js/npm, then the pinned npm packages (package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(cmake ninja-build g++ clang clang-format libclang-rt-14-dev emscripten nlohmann-json3-dev catch2 chromium xz-utils)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# npm packages (build and test only: terser minifies the page, playwright-core and axe-core run the browser tests, prettier checks formatting).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
