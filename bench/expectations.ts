/**
 * Issue 24, "Proof": 100,000 expectations matched against 100,000 settled transfers on SQLite
 * in under 10 s. Bulk-inserts both into a fresh SQLite file (not timed), then times one
 * `matchAllExpectations` in one transaction: reading the expectations and the settled items,
 * the engine, and writing the matches, states, history rows and breaks. The set mixes the
 * rules: 10 % by item id, 30 % by reference, 60 % by amount and window (one-day windows,
 * amounts of few collisions); 1 % of the amounts differ, 1 % of the transfers are extra, and
 * 1 % of the expectations are never paid (overdue, `missing`).
 *
 * Usage: npm run bench:expectations [-- --count 100000] [--no-write] [--label TEXT]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDatabase, migrateToLatest } from '../src/db/index.ts';
import { matchAllExpectations } from '../src/expectations/index.ts';
import { insertRows, type Row } from '../test/support/seed-books.ts';
import { appendPerformanceRow } from './performance-doc.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    'no-write': { type: 'boolean', default: false },
    label: { type: 'string', default: '' },
  },
});
const count = Number(values.count);
if (!Number.isInteger(count) || count < 100) {
  console.error('--count must be a whole number of at least 100');
  process.exit(2);
}

const ENVIRONMENT = 'sandbox';
const DAY_MS = 86_400_000;
const START = Date.UTC(2026, 0, 1);
const NOW = new Date(START + 200 * DAY_MS).toISOString();
const iso = (ms: number) => new Date(ms).toISOString();

function amountOf(i: number): number {
  // Spread over 500,000 values so that amount buckets hold one or two items.
  return 1000 + ((i * 7919) % 500_000) * 10;
}

function transferRow(i: number, amount: number, settledMs: number): Row<'transfers'> {
  const at = iso(settledMs);
  return {
    id: `tr_${i}`,
    merchant_id: 'mch_bench',
    reference: `payout-${i}`,
    status: 'successful',
    upstream_status: 'successful',
    amount,
    currency: 'XOF',
    mode: 'sandbox',
    is_irt: 0,
    is_delegated: 0,
    fees: '[]',
    destination: JSON.stringify({
      type: 'mobile_money',
      number: `22177${String(i).padStart(7, '0')}`,
    }),
    description: `payout ${i}`,
    provider_reference: `prov-${i}`,
    failure_code: null,
    failure_message: null,
    created_at: at,
    updated_at: at,
    raw: '{}',
    first_seen_at: at,
    last_synced_at: at,
  };
}

function expectationRow(i: number, dayMs: number): Row<'expectations'> {
  const rule = i % 10 === 0 ? 'id' : i % 10 <= 3 ? 'reference' : 'amount_window';
  const amount = amountOf(i);
  return {
    environment: ENVIRONMENT,
    expectation_id: `E-${i}`,
    direction: 'out',
    item_kinds: null,
    currency: 'XOF',
    amount_min: amount,
    amount_max: amount,
    window_from: iso(dayMs),
    window_to: iso(dayMs + DAY_MS - 1),
    reference: rule === 'reference' ? `payout-${i}` : null,
    item_id: rule === 'id' ? `tr_${i}` : null,
    counterparty: null,
    purchase_reference: null,
    description_pattern: null,
    allow_split: 0,
    match_group: null,
    metadata: '{}',
    state: 'open',
    matched_amount: 0,
    version: 1,
    content_hash: `h${i}`,
    created_at: iso(START),
    updated_at: iso(START),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'paysync-bench-expectations-'));
const handle = createDatabase(`sqlite:${join(dir, 'paysync.db')}`);
try {
  await migrateToLatest(handle.db);
  const transfers: Row<'transfers'>[] = [];
  const expectations: Row<'expectations'>[] = [];
  for (let i = 1; i <= count; i++) {
    const dayMs = START + (i % 100) * DAY_MS;
    const settledMs = dayMs + ((i * 997) % DAY_MS);
    // 1 % never paid (their transfer is an extra one, of another amount, in another day).
    const unpaid = i % 100 === 7;
    // 1 % paid with another amount.
    const amount = i % 100 === 13 ? amountOf(i) - 500 : amountOf(i);
    expectations.push(expectationRow(i, dayMs));
    transfers.push(
      unpaid
        ? { ...transferRow(i, 999, settledMs + 150 * DAY_MS), reference: `extra-${i}` }
        : transferRow(i, amount, settledMs),
    );
  }
  const seeding = performance.now();
  await insertRows(handle.db, 'transfers', transfers);
  await insertRows(handle.db, 'expectations', expectations);
  const seeded = (performance.now() - seeding) / 1000;
  console.log(`seeded ${count} transfers and ${count} expectations in ${seeded.toFixed(1)} s`);

  const loadBefore = loadavg()[0]!.toFixed(2);
  const started = performance.now();
  const writes = await handle.db
    .transaction()
    .execute((trx) =>
      matchAllExpectations(trx, NOW, { environment: ENVIRONMENT, allExpected: 'out' }),
    );
  const seconds = (performance.now() - started) / 1000;
  const states = await handle.db
    .selectFrom('expectations')
    .select(['state', handle.db.fn.countAll<number>().as('n')])
    .groupBy('state')
    .orderBy('state')
    .execute();
  const breaks = await handle.db
    .selectFrom('expectation_breaks')
    .select(['kind', handle.db.fn.countAll<number>().as('n')])
    .groupBy('kind')
    .orderBy('kind')
    .execute();
  console.log(
    `matched ${count} expectations against ${count} settled items in ${seconds.toFixed(2)} s`,
  );
  console.log(JSON.stringify({ writes, states, breaks }));
  if (!values['no-write']) {
    const label = values.label === '' ? '' : ` (${values.label})`;
    const summary = states.map((s) => `${s.state} ${s.n}`).join(', ');
    const row = `| ${new Date().toISOString().slice(0, 16)}Z${label} | SQLite | ${count} | ${count} | ${seconds.toFixed(2)} | ${summary}; ${writes.breaksOpened} breaks | ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, load ${loadBefore} |`;
    const file = appendPerformanceRow({
      marker: '<!-- bench:expectations:rows (appended by `npm run bench:expectations`) -->',
      header: [
        '## Expectations matching (`npm run bench:expectations`)',
        '',
        'Issue 24: 100,000 expectations matched against 100,000 settled transfers on SQLite, all at once (`matchAllExpectations`, one transaction): reading both, the engine, and writing the matches, states, history rows and breaks. The seeding is not timed. The set mixes the rules (10 % by item id, 30 % by reference, 60 % by amount and a one-day window); 1 % of the amounts differ, 1 % are never paid and their transfers are extra (`unexpected`, with `PAYSYNC_EXPECTATIONS_ALL_EXPECTED=out`). Target: under 10 s. Newest last.',
        '',
        '| Run | Database | Expectations | Settled items | Seconds | Outcome | Machine |',
        '| --- | --- | ---: | ---: | ---: | --- | --- |',
      ],
      row,
    });
    console.log(`wrote ${file}`);
  }
} finally {
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
}
