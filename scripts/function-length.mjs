// Lists the C++ functions (core/src, wasm, tools) longer than a limit, counted from the first line of
// the signature to the closing brace; exits 1 if there are any. A function that is only a data table
// (one row per field or preset) may say so on the line above its signature: `// table: <why>`.
// usage: node scripts/function-length.mjs [limit=60] [files...]
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const limit = Number(process.argv[2] || 60);
const dirs = ['core/src', 'core/cli', 'wasm', 'tools'];
const files =
  process.argv.length > 3
    ? process.argv.slice(3)
    : dirs.flatMap((d) => {
        try {
          return readdirSync(d)
            .filter((f) => f.endsWith('.cpp'))
            .map((f) => join(d, f));
        } catch {
          return [];
        }
      });

const long = [];
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].replace(/\/\/.*$/, '');
    // A definition: a name and an opening parenthesis at column 0, or a member function inside a
    // struct (indented, its body opening on the same line); not a declaration, a variable, a macro
    // or a statement.
    const top = /^[A-Za-z]/.test(l) && !/^(namespace|struct|class|enum|extern|using|static_assert|#)/.test(l);
    const member =
      /^ {4}[A-Za-z_][\w:<>,*& ]*\s[\w:~]+\([^;]*\)\s*(const)?\s*(noexcept)?\s*\{\s*$/.test(l) && !/^\s*(if|for|while|switch|catch|else|do|return)\b/.test(l);
    if (!(top || member) || !l.includes('(') || /;\s*$/.test(l) || /=[^=]*\(/.test(l.split('(')[0] + '(')) continue;
    const table = i > 0 && /^\/\/ table: \S/.test(lines[i - 1]);
    let k = i;
    while (k < lines.length && !lines[k].includes('{') && !/;\s*$/.test(lines[k])) k++;
    if (k >= lines.length || /;\s*$/.test(lines[k])) {
      i = k;
      continue;
    }
    let depth = 0;
    let j = k;
    for (; j < lines.length; j++) {
      const code = lines[j].replace(/"(\\.|[^"\\])*"|'(\\.|[^'\\])*'|\/\/.*$/g, '');
      depth += (code.match(/\{/g) || []).length - (code.match(/\}/g) || []).length;
      if (depth <= 0) break;
    }
    const n = j - i + 1;
    if (n > limit && !table) long.push(`${file}:${i + 1}: ${n} lines: ${l.trim().slice(0, 90)}`);
    i = j;
  }
}
for (const x of long) console.log(x);
if (long.length) {
  console.log(`${long.length} function(s) over ${limit} lines`);
  process.exit(1);
}
