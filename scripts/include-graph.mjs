// The core's include graph, by module (core/include/gpucalc/X.hpp with core/src/X.cpp): module X
// depends on Y when either of X's files includes gpucalc/Y.hpp. The graph must have no cycle (no
// arrow runs back up: a lower module never reaches a higher one). Prints each module's level
// (0 = includes no other module) and exits 1 on a cycle, naming it.
// usage: node scripts/include-graph.mjs [--quiet]
import { readFileSync, readdirSync, existsSync } from 'node:fs';

const inc = 'core/include/gpucalc';
const src = 'core/src';
const modules = new Set([
  ...readdirSync(inc)
    .filter((f) => f.endsWith('.hpp'))
    .map((f) => f.slice(0, -4)),
  ...readdirSync(src)
    .filter((f) => f.endsWith('.cpp'))
    .map((f) => f.slice(0, -4))
]);
const deps = new Map();
for (const m of modules) {
  const d = new Set();
  for (const file of [`${inc}/${m}.hpp`, `${src}/${m}.cpp`]) {
    if (!existsSync(file)) continue;
    for (const [, y] of readFileSync(file, 'utf8').matchAll(/^#include "gpucalc\/([a-z_0-9]+)\.hpp"/gm)) if (y !== m) d.add(y);
  }
  deps.set(m, d);
}
// Levels by depth-first search; a module met again on the current path is a cycle.
const level = new Map();
const path = [];
function visit(m) {
  if (level.has(m)) return level.get(m);
  const at = path.indexOf(m);
  if (at >= 0) {
    console.error('include cycle: ' + path.slice(at).concat(m).join(' -> '));
    process.exit(1);
  }
  path.push(m);
  let l = 0;
  for (const y of deps.get(m) || []) l = Math.max(l, visit(y) + 1);
  path.pop();
  level.set(m, l);
  return l;
}
for (const m of [...modules].sort()) visit(m);
if (!process.argv.includes('--quiet')) {
  const by = new Map();
  for (const [m, l] of level) by.set(l, [...(by.get(l) || []), m].sort());
  for (const l of [...by.keys()].sort((a, b) => a - b)) console.log(`level ${l}: ${by.get(l).join(' ')}`);
}
