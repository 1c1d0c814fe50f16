// Builds the single embeddable script: the WebAssembly module (gpucalc.js, wasm inside), uPlot,
// the element's CSS, the formatter and the element itself -> <site>/gpucalc-embed.js.
// usage: node scripts/bundle.mjs <repo root> <site dir> <gpucalc.js>
import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';

const [root, site, moduleJs] = process.argv.slice(2);
if (!root || !site || !moduleJs) {
  console.error('usage: node scripts/bundle.mjs <repo root> <site dir> <gpucalc.js>');
  process.exit(2);
}
const read = (p) => readFileSync(p, 'utf8');
const uplotDir = join(root, 'node_modules', 'uplot', 'dist');
const css = read(join(uplotDir, 'uPlot.min.css')) + '\n' + read(join(root, 'web', 'style.css'));
const parts = [
  '/* gpucalc — https://github.com/ (MIT). Bundles uPlot (MIT, Leon Sorokin). */',
  read(moduleJs),
  read(join(uplotDir, 'uPlot.iife.min.js')),
  'globalThis.__gpucalcCss = ' + JSON.stringify(css) + ';',
  read(join(root, 'web', 'format.js')),
  read(join(root, 'web', 'app.js')),
];
mkdirSync(site, { recursive: true });
writeFileSync(join(site, 'gpucalc-embed.js'), parts.join('\n;\n'));
for (const f of ['index.html', 'embed.html', 'frame.html', 'page.css']) copyFileSync(join(root, 'web', f), join(site, f));
copyFileSync(moduleJs, join(site, 'gpucalc.js'));
console.log('site written to ' + site);
