import { spawn } from 'node:child_process';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/index.ts';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts';
import { PAYSYNC_BIN, runCli } from '../support/run-cli.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { startRecordingProxy, type RecordingProxy } from './support/recording-proxy.ts';

/**
 * Acceptance 3. 1,000 seeded items in `npm test`; `npm run test:acceptance` runs 2,000 (one run
 * of `paysync backfill` takes ~10 s on a loaded 2-core machine), and
 * PAYSYNC_TEST_BACKFILL_ITEMS=20000 the full-size form.
 */
const ITEMS = Number(process.env.PAYSYNC_TEST_BACKFILL_ITEMS ?? 1000);
const DAYS = 10;
const PER_PAGE = 100;

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('PAYSYNC_') && !key.startsWith('npm_') && key !== 'NODE_OPTIONS')
      env[key] = value;
  }
  return { ...env, ...extra };
}

/** Everything the ledger says, without our own ids and clock times. */
async function ledgerSnapshot(db: Kysely<Database>) {
  const intents = await db
    .selectFrom('payment_intents')
    .select(['id', 'status', 'upstream_status', 'amount', 'currency', 'updated_at'])
    .orderBy('id')
    .execute();
  const transfers = await db
    .selectFrom('transfers')
    .select(['id', 'status', 'upstream_status', 'amount', 'currency', 'updated_at'])
    .orderBy('id')
    .execute();
  const history = await db
    .selectFrom('status_history')
    .select([
      'resource_kind',
      'resource_id',
      'from_status',
      'to_status',
      'service_updated_at',
      'via',
    ])
    .orderBy('resource_kind')
    .orderBy('resource_id')
    .orderBy('service_updated_at')
    .execute();
  const lines = await db
    .selectFrom('journals')
    .innerJoin('journal_lines', 'journal_lines.journal_id', 'journals.id')
    .select([
      'journals.resource_kind',
      'journals.resource_id',
      'journals.settlement_key',
      'journals.entry_type',
      'journals.effective_at',
      'journals.via',
      'journal_lines.line_no',
      'journal_lines.account',
      'journal_lines.currency',
      'journal_lines.amount',
    ])
    .orderBy('journals.resource_kind')
    .orderBy('journals.resource_id')
    .orderBy('journals.settlement_key')
    .orderBy('journal_lines.line_no')
    .execute();
  return { intents, transfers, history, lines };
}

describe(`backfill resume on ${testDialect()}`, () => {
  let sim: RunningSimulator;
  let proxy: RecordingProxy;
  let uninterrupted: TestDatabase;
  let resumed: TestDatabase;
  let range: { from: string; to: string };

  const envFor = (database: TestDatabase, upstream: string) => ({
    PAYSYNC_UPSTREAM_URL: upstream,
    PAYSYNC_API_KEY: sim.credentials.apiKey,
    PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
    PAYSYNC_DATABASE_URL: database.url,
    PAYSYNC_QUEUE_PREFIX: `paysync-test:backfill:${Math.random().toString(16).slice(2)}`,
    PAYSYNC_UPSTREAM_RPS: '5000',
    PAYSYNC_LIST_PER_PAGE: String(PER_PAGE),
    PAYSYNC_LOG_LEVEL: 'warn',
  });
  const backfillArgs = () => ['backfill', '--from', range.from, '--to', range.to];

  beforeAll(async () => {
    sim = await startSimulator({
      freezeClock: true,
      startAt: new Date(Date.now() - 3_600_000),
      seed: 42,
    });
    const now = Date.parse(sim.control.now());
    range = {
      from: new Date(now - DAYS * 86_400_000).toISOString(),
      to: new Date(now - 60_000).toISOString(),
    };
    for (const kind of ['transfer', 'payment_intent'] as const) {
      sim.control.seed({ kind, count: ITEMS / 2, ...range, settle: true });
    }
    proxy = await startRecordingProxy(sim.url);
    uninterrupted = await freshDatabase();
    resumed = await freshDatabase();
  }, 120_000);

  afterAll(async () => {
    await proxy?.stop();
    await sim?.stop();
    await uninterrupted?.cleanup();
    await resumed?.cleanup();
  });

  it('killed with SIGKILL midway and run again, ends with the same ledger as an uninterrupted run, re-reading nothing committed', async () => {
    const full = await runCli(backfillArgs(), {
      env: envFor(uninterrupted, sim.url),
      timeoutMs: 1_200_000,
    });
    expect(full.stderr).toBe('');
    expect(full.code).toBe(0);
    expect(full.stdout).toContain(`backfill: ${ITEMS} items: ${ITEMS} new, 0 changed, 0 unchanged`);
    expect(full.stdout).toMatch(
      /backfill: money booked \(settlements, gross per currency\): [\d,]+ XOF/,
    );
    // One progress line per window without a terminal.
    expect(full.stdout.match(/^backfill: window \d+\/20 /gm)).toHaveLength(2 * DAYS);

    // The same backfill, killed without warning part-way through.
    const child = spawn(process.execPath, [PAYSYNC_BIN, ...backfillArgs()], {
      env: cleanEnv(envFor(resumed, sim.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<string | number | null>((resolve) =>
      child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('window 8/20')) setTimeout(() => child.kill('SIGKILL'), 150);
    });
    expect(await exited).toBe('SIGKILL');
    const checkpoints = await resumed.db
      .selectFrom('polling_checkpoints')
      .selectAll()
      .where('stream', 'like', 'backfill:%')
      .execute();
    const committedAt = new Map(
      checkpoints.map((c) => [c.stream.split(':')[1], Date.parse(c.position)]),
    );
    expect(committedAt.get('payment_intent')).toBeGreaterThan(Date.parse(range.from));
    const committedIds = new Set([
      ...(await resumed.db.selectFrom('payment_intents').select('id').execute()).map((r) => r.id),
      ...(await resumed.db.selectFrom('transfers').select('id').execute()).map((r) => r.id),
    ]);
    expect(committedIds.size).toBeGreaterThan(0);
    expect(committedIds.size).toBeLessThan(ITEMS);

    const again = await runCli(backfillArgs(), {
      env: envFor(resumed, proxy.url),
      timeoutMs: 1_200_000,
    });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    // The summary covers the whole backfill, the killed run's commits included.
    expect(again.stdout).toContain(`backfill: ${ITEMS} items: ${ITEMS} new`);

    // The second run only asked for what was not committed...
    const lists = proxy.requests.filter((r) =>
      /^\/(payment-intents|transfers)$/.test(r.url.pathname),
    );
    expect(lists.length).toBeGreaterThan(0);
    for (const request of lists) {
      const kind = request.url.pathname === '/transfers' ? 'transfer' : 'payment_intent';
      const committed = committedAt.get(kind);
      if (committed !== undefined) {
        expect(Date.parse(request.url.searchParams.get('from')!)).toBeGreaterThanOrEqual(committed);
      }
    }
    // ...and read again at most one page of items already in the ledger.
    const reread = new Set(lists.flatMap((r) => r.ids).filter((id) => committedIds.has(id)));
    expect(reread.size).toBeLessThanOrEqual(PER_PAGE);

    expect(await ledgerSnapshot(resumed.db)).toEqual(await ledgerSnapshot(uninterrupted.db));
    const mirrored =
      (await ledgerSnapshot(resumed.db)).intents.length +
      (await ledgerSnapshot(resumed.db)).transfers.length;
    expect(mirrored).toBe(ITEMS);
  }, 1_800_000);
});
