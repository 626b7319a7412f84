#!/usr/bin/env node
// Compiles src/, jobs/ and migrations/ into dist/ (tsc, tsconfig.build.json) and copies the
// assets the code serves from beside itself. `npm ci` runs it (the `prepare` script), so a
// fresh clone needs no step to remember; `bin/paysync.js` runs dist/ only while it is newer
// than every source (bin/entry.js), and the sources through tsx otherwise.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
/** Files the code reads from its own folder at run time (not TypeScript, so tsc skips them). */
const ASSETS = ['src/ops/balance-chart.js'];

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without devDependencies: paysync runs from the sources through tsx instead.
  console.log(
    'paysync build: typescript is not installed; paysync will run its sources through tsx',
  );
  process.exit(0);
}
rmSync(dist, { recursive: true, force: true });
const started = Date.now();
const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (run.status !== 0) {
  rmSync(dist, { recursive: true, force: true });
  console.error(
    'paysync build: tsc failed (above); dist/ removed, paysync will run its sources through tsx',
  );
  process.exit(1);
}
for (const asset of ASSETS) {
  mkdirSync(dirname(join(dist, asset)), { recursive: true });
  copyFileSync(join(root, asset), join(dist, asset));
}
// Written last: its time is what bin/entry.js compares with the sources'.
writeFileSync(join(dist, '.build-stamp'), `${new Date().toISOString()}\n`);
if (!existsSync(join(dist, 'src/cli/main.js'))) {
  console.error('paysync build: dist/src/cli/main.js is missing after tsc');
  process.exit(1);
}
console.log(`paysync build: dist/ compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
