/**
 * `npm run docs:screenshots`: rewrites `docs/screenshots/*.png` from the dashboard's browser test
 * (SQLite run). Test runs never write them, so `npm test` leaves the tree clean; run this when
 * the dashboard's look changes and commit the pictures with that change.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const result = spawnSync(
  process.execPath,
  [
    resolve(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--project',
    'sqlite',
    'test/ops/dashboard.db.test.ts',
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, PAYSYNC_DOCS_SCREENSHOTS: '1' } },
);
if (result.error) {
  console.error(`docs:screenshots: could not run vitest: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
