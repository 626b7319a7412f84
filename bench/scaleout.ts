/**
 * Issue 12, target 5: scale-out on PostgreSQL. Runs bench/pipeline.ts three times, each on a
 * schema of its own in the PostgreSQL database (`PAYSYNC_BENCH_POSTGRES_URL`, default the test
 * database), with the roles split as ecosystem.config.cjs runs them: one `paysync serve`, one
 * `paysync schedule` and 1, 2, then 4 `paysync work` processes. Each run reports items/s and
 * CPU and ends with `paysync audit --truth` against the simulator: the end state must equal
 * the service's in every configuration. Rows go to the pipeline table of docs/performance.md.
 *
 * On a 2-core machine that also runs the simulator, Redis and PostgreSQL, more workers cannot
 * add CPU: read the figures as "no loss of correctness and no collapse", not as scaling.
 *
 * Usage: npm run bench:scaleout [-- --items 500 | --short] [--workers 1,2,4] [--no-write]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createDatabase } from '../src/db/index.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    short: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1,2,4' },
    'no-write': { type: 'boolean', default: false },
  },
});
const perKind = values.items ?? (values.short ? '100' : '500');
const counts = values.workers.split(',').map(Number);
if (counts.some((n) => !Number.isInteger(n) || n < 1)) {
  console.error('--workers must be a comma-separated list of whole numbers, e.g. 1,2,4');
  process.exit(2);
}
const baseUrl = process.env.PAYSYNC_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let failed = 0;
for (const workers of counts) {
  const schema = `bench_scaleout_${randomBytes(4).toString('hex')}`;
  const admin = createDatabase(baseUrl, { poolSize: 1 });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  console.log(`\n=== PostgreSQL, serve + schedule + ${workers} work ===`);
  try {
    const run = spawnSync(
      process.execPath,
      [
        'node_modules/tsx/dist/cli.mjs',
        'bench/pipeline.ts',
        '--items',
        perKind,
        '--workers',
        String(workers),
        '--audit',
        '--label',
        `scale-out, ${workers} worker${workers === 1 ? '' : 's'}`,
        ...(values['no-write'] ? ['--no-write'] : []),
      ],
      {
        stdio: 'inherit',
        env: { ...process.env, PAYSYNC_BENCH_DATABASE_URL: url.toString() },
      },
    );
    if (run.status !== 0) failed += 1;
  } finally {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
    await admin.close();
  }
}
if (failed > 0) {
  console.error(`${failed} of ${counts.length} configurations failed (see above)`);
  process.exit(1);
}
