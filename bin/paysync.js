#!/usr/bin/env node
// paysync ships TypeScript sources. `npm ci` compiles them into dist/ (the `prepare` script),
// and this runs that JavaScript while it is current; otherwise (a source edited since, or no
// build) it runs the sources through tsx. Either way `npm ci && npx paysync` works with no
// build step to remember. See bin/entry.js.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseEntry } from './entry.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (chooseEntry(root) === 'dist') {
  await import('../dist/src/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
