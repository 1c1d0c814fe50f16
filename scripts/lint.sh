#!/usr/bin/env bash
# Project checks that need no build: one version source, actions pinned by SHA, least-privilege CI,
# page modules small, no user text into innerHTML, formatting, function length. Called by
# scripts/test.sh; exits 1 on the first failure with a message that says what to fix.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "lint: $*" >&2; exit 1; }

# One version: CMake's project(VERSION) is the source; package.json must say the same.
cmake_version=$(sed -n 's/^project(gpucalc VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
pkg_version=$(node -p 'require("./package.json").version')
[ -n "$cmake_version" ] || fail "no project(gpucalc VERSION x.y.z) in CMakeLists.txt"
[ "$cmake_version" = "$pkg_version" ] || fail "package.json version $pkg_version differs from CMakeLists.txt $cmake_version"

# CI: every action pinned to a 40-hex commit, default permissions read-only, every job has a timeout.
for wf in .github/workflows/*.yml; do
  if grep -nE '^\s*(- )?uses:\s*[^ ]+@' "$wf" | grep -vE '@[0-9a-f]{40}(\s|$)'; then
    fail "$wf: pin actions by commit SHA (tag in a comment)"
  fi
  grep -qE '^permissions:' "$wf" || fail "$wf: set top-level permissions (least privilege)"
  jobs=$(grep -cE '^\s{2}[a-z_-]+:\s*$' <(sed -n '/^jobs:/,$p' "$wf") || true)
  timeouts=$(grep -c 'timeout-minutes:' "$wf" || true)
  [ "$timeouts" -ge "$jobs" ] || fail "$wf: every job needs timeout-minutes ($timeouts of $jobs)"
done

# The page: modules stay small; no innerHTML/outerHTML/insertAdjacentHTML/document.write anywhere.
for f in web/*.js; do
  n=$(wc -l <"$f")
  [ "$n" -le 300 ] || fail "$f has $n lines (keep page modules under 300)"
done
if grep -nE 'innerHTML|outerHTML|insertAdjacentHTML|document\.write' web/*.js web/*.html | grep -vE ':\s*(//|\*)'; then
  fail "build DOM with web/dom.js helpers, never HTML strings"
fi
# Formatting: clang-format (.clang-format) for the C++, Prettier (.prettierrc.json) for the JavaScript.
cxx=$(git ls-files 'core/*.cpp' 'core/*.hpp' 'wasm/*.cpp' 'tools/*.cpp' 'tests/unit/*.cpp' 'tests/unit/*.hpp' 'tests/fuzz/*.cpp')
# shellcheck disable=SC2086
clang-format --dry-run -Werror $cxx 2>/dev/null || fail "C++ not formatted: clang-format -i \$(git ls-files '*.cpp' '*.hpp')"
node_modules/.bin/prettier --check --log-level warn 'web/*.js' 'tests/browser/*.mjs' 'tests/node/*.mjs' 'scripts/*.mjs' ||
  fail "JavaScript not formatted: npx prettier --write 'web/*.js' 'tests/**/*.mjs' 'scripts/*.mjs'"

# The core's functions stay short enough to read (no function over 60 lines), and no module of the
# core reaches back up the include graph (no cycle between modules).
node scripts/function-length.mjs 60 || fail "split the functions above (scripts/function-length.mjs)"
node scripts/include-graph.mjs --quiet || fail "break the include cycle above (scripts/include-graph.mjs)"
echo "lint: ok"
