// Builds the single embeddable script: the WebAssembly module (gpucalc.js, wasm inside as Latin-1 text),
// the element's CSS, the formatter and the page modules -> <site>/gpucalc-embed.js.
// The page modules (web/*.js below) are plain scripts, each declaring one namespace; they are
// concatenated in this order inside one function scope, so the result needs no module loader and
// runs from file://, in an iframe and under a CSP without eval. The build minifies it (Terser).
// usage: node scripts/bundle.mjs <repo root> <site dir> <gpucalc.js>
import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Script, createContext, runInContext } from 'node:vm';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

// [file, the namespace it declares], dependencies first.
export const PAGE_MODULES = [
  ['dom.js', 'Dom'],
  ['guard.js', 'Guard'],
  ['parse.js', 'Parse'],
  ['fields.js', 'Fields'],
  ['words.js', 'Words'],
  ['state.js', 'State'],
  ['scenario.js', 'Scenario'],
  ['core.js', 'Core'],
  ['worker.js', 'PlanWorker'],
  ['chart-svg.js', 'ChartSvg'],
  ['charts.js', 'Charts'],
  ['forms.js', 'Forms'],
  ['card.js', 'Card'],
  ['nav.js', 'Nav'],
  ['share.js', 'Share'],
  ['follow.js', 'Follow'],
  ['train-scaling.js', 'TrainScaling'],
  ['section-train.js', 'TrainSection'],
  ['serve-notes.js', 'ServeNotes'],
  ['section-serve.js', 'ServeSection'],
  ['section-finetune.js', 'FinetuneSection'],
  ['plan-card.js', 'PlanCard'],
  ['section-plan.js', 'PlanSection'],
  ['section-cluster.js', 'ClusterSection'],
  ['section-explain.js', 'ExplainSection'],
  ['section-network.js', 'NetworkView'],
  ['section-reality.js', 'RealitySection'],
  ['section-json.js', 'JsonSection'],
  ['io.js', 'IO'],
  ['notice.js', 'Notice'],
  ['lazy.js', 'Lazy'],
  ['boot.js', 'Boot'],
  ['app.js', 'GpuCalc']
];

// The page modules as one script: an immediately invoked function holding them all.
export function pageScript(root) {
  const parts = ["(function () {\n'use strict';"];
  for (const [file, name] of PAGE_MODULES) {
    const src = readFileSync(join(root, 'web', file), 'utf8');
    if (!new RegExp('^(const|class) ' + name + '\\b', 'm').test(src)) throw new Error(`web/${file} must declare ${name}`);
    parts.push(`// ----- web/${file}\n` + src);
  }
  parts.push('})();');
  const code = parts.join('\n');
  new Script(code, { filename: 'gpucalc-page.js' }); // a syntax error (or a name declared twice) fails the build here
  return code;
}

async function main() {
  const [root, site, moduleJs] = process.argv.slice(2);
  if (!root || !site || !moduleJs) {
    console.error('usage: node scripts/bundle.mjs <repo root> <site dir> <gpucalc.js>');
    process.exit(2);
  }
  const read = (p) => readFileSync(p, 'utf8');
  const css = read(join(root, 'web', 'style.css'));
  const parts = [
    // The byte-order mark first: the page's texts hold non-ASCII characters (µ, –, ×), and the mark
    // makes every page decode this file as UTF-8, whatever the page's own encoding.
    '\ufeff/* gpucalc — https://github.com/ (MIT). */',
    read(moduleJs).replace(/^\ufeff/, ''),
    'globalThis.__gpucalcCss = ' + JSON.stringify(smallCss(css)) + ';',
    'globalThis.__gpucalcFirst = ' + JSON.stringify(await recordFirst(root, moduleJs)) + ';',
    await small(read(join(root, 'web', 'format.js')) + '\n;\n' + pageScript(root))
  ];
  mkdirSync(site, { recursive: true });
  writeFileSync(join(site, 'gpucalc-embed.js'), parts.join('\n;\n'));
  for (const f of ['index.html', 'embed.html', 'frame.html', 'page.css']) copyFileSync(join(root, 'web', f), join(site, f));
  copyFileSync(moduleJs, join(site, 'gpucalc.js'));
  console.log('site written to ' + site);
}

// The default page's first answer, recorded with the module being bundled (web/boot.js shows it
// before the module has started; the module gives the same bytes for the same question): the first
// section's request as the page builds it from its default state (its own modules, run here), the
// module's answer without derivations, and the option lists its form needs (ids, names and the
// fields that group them; the full catalogs come from the module). Measured 2026-12-05 (node
// scripts/bench.mjs): +4 KB gzip; the first answer on a cold load ~200 ms earlier.
export async function recordFirst(root, moduleJs) {
  const files = ['dom.js', 'guard.js', 'parse.js', 'fields.js', 'words.js', 'state.js', 'scenario.js'];
  const src = files.map((f) => readFileSync(join(root, 'web', f), 'utf8')).join('\n;\n') + '\n;({ State, Scenario });';
  const { State, Scenario } = runInContext(src, createContext({}));
  const st = State.sanitizeState(State.cloneDefaults());
  const section = State.SECTIONS.includes(st.view.section) ? st.view.section : State.SECTIONS[0]; // as the element's _firstSection, all shown
  const built = Scenario.build[section](st[section], st);
  if (built.problems.length) throw new Error('the default ' + section + ' form does not build: ' + JSON.stringify(built.problems));
  const request = Scenario.requestText(built);
  const m = await createRequire(import.meta.url)(resolve(moduleJs))();
  const answer = m.estimate(request);
  if (JSON.parse(answer).errors) throw new Error('the default ' + section + ' question has no answer: ' + answer);
  const list = (text, key, fields) => JSON.parse(text)[key].map((x) => Object.fromEntries(fields.map((f) => [f, x[f]])));
  return {
    section,
    request,
    answer,
    devices: list(m.devices(), 'devices', ['id', 'name', 'kind']),
    models: list(m.presets(), 'models', ['id', 'name', 'params']),
    networks: list(m.networks(), 'networks', ['id', 'name', 'level'])
  };
}

// The element's CSS without comments and spare whitespace (-0.6 kB gzip); quoted strings are kept
// as written.
export function smallCss(css) {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split(/("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/)
    .map((part, i) => (i % 2 ? part : part.replace(/\s+/g, ' ').replace(/ ?([{};,]) ?/g, '$1')))
    .join('')
    .trim();
}

// The page's own script, minified (Terser: whitespace, comments and local names; -23 kB gzip). The
// module's glue is minified by emcc. Names that the tests and the embedding page
// use (gpucalcPage, the element's methods) are properties, which Terser leaves as they are.
async function small(code) {
  const { minify } = await import('terser');
  const out = await minify(code, { ecma: 2020, compress: { passes: 2 }, mangle: true, format: { comments: /^!|@license/ } });
  return out.code;
}

// Run as a script (the build); imported (the tests), it only exports.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
