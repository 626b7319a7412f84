/**
 * The Balances page charts the last 30 days of snapshots. On a year of books (issue 22,
 * `bench:big-books`) it read the OLDEST 10,000 snapshots (a year's first months, not the recent
 * ones) and matched them point by point (628 ms against 28 on one day's books).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balancesPage } from '../../src/ops/balances.page.ts';
import type { DashboardView } from '../../src/ops/dashboard-layout.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
const NOW = new Date('2026-11-20T12:00:00.000Z');
const DAY = 86_400_000;

beforeAll(async () => {
  database = await freshDatabase();
  const at = (ms: number) => new Date(ms).toISOString();
  // Daily snapshots for 60 days: the chart keeps the last 30.
  await database.db
    .insertInto('balance_snapshots')
    .values(
      Array.from({ length: 60 }, (_, i) => ({
        environment: 'sandbox',
        account_type: 'transfer',
        currency: 'XOF',
        amount: 1_000_000 + i,
        as_of: at(NOW.getTime() - (59 - i) * DAY),
        taken_at: at(NOW.getTime() - (59 - i) * DAY),
        kind: 'scheduled' as const,
        raw: '{}',
      })),
    )
    .execute();
});

afterAll(async () => {
  await database?.close();
});

describe(`the Balances page on ${testDialect()}`, () => {
  it('charts the last 30 days of snapshots, newest included, older ones left out', async () => {
    const view = {
      deps: {},
      csrf: 'token',
      ctx: {
        db: database.db,
        environment: 'sandbox',
        timeZone: 'UTC',
        logger: pino({ level: 'silent' }),
        now: () => NOW,
      },
    } as unknown as DashboardView;
    const answer = await balancesPage(view);
    expect(answer.status).toBe(200);
    expect(answer.html).toContain('Balance over the last 30 days (1 series)');
    const chart = /"times":\[([^\]]*)\]/.exec(answer.html);
    const times = chart![1]!.split(',').map((t) => new Date(Number(t) * 1000).toISOString());
    expect(times).toHaveLength(31);
    expect(times[0]).toBe(new Date(NOW.getTime() - 30 * DAY).toISOString());
    expect(times.at(-1)).toBe(NOW.toISOString());
  });
});
