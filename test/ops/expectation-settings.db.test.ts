/**
 * The ops API reads the same expectation settings as the CLI and the daemon: a day's report
 * computed on the spot honours PAYSYNC_EXPECTATIONS_BREAK_VERDICT, and expectations loaded over
 * HTTP are matched with PAYSYNC_EXPECTATIONS_ALL_EXPECTED, so a load never clears an
 * `unexpected` break the daemon raised. Before, the API used the defaults for both.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { listBreaks, matchSettledItems } from '../../src/expectations/index.ts';
import { createOpsRouter, createOpsServer, type OpsServer } from '../../src/ops/index.ts';
import { item } from '../expectations/match-fixtures.ts';
import { settle } from '../expectations/support/matching-rows.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { EXPECTATIONS_NOW, seedExpectationBooks } from './support/expectation-books.ts';

const TOKEN = 'expectation-settings-token-51f0';

let database: TestDatabase | undefined;
let server: OpsServer | undefined;
afterEach(async () => {
  await server?.stop();
  await database?.cleanup();
  server = undefined;
  database = undefined;
});

async function start(
  expectations: Parameters<typeof createOpsRouter>[0]['expectations'],
): Promise<string> {
  const logger = pino({ level: 'silent' });
  server = createOpsServer({
    routes: createOpsRouter({
      db: database!.db,
      logger,
      now: () => new Date(EXPECTATIONS_NOW),
      tokens: [TOKEN],
      environment: 'sandbox',
      timeZone: 'UTC',
      ...(expectations ? { expectations } : {}),
    }),
    port: 0,
    host: '127.0.0.1',
    logger,
  });
  await server.start();
  return server.url;
}

async function call(url: string, method: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the ops API and the expectation settings', () => {
  it("a day's report computed on the spot honours PAYSYNC_EXPECTATIONS_BREAK_VERDICT", async () => {
    database = await freshDatabase();
    await seedExpectationBooks(database.db); // payroll-late: a missing break, detected 03-10
    const day = EXPECTATIONS_NOW.slice(0, 10);

    const strict = await start(undefined);
    const byDefault = await call(`${strict}/api/v1/reports/${day}`, 'GET');
    expect(byDefault.status).toBe(200);
    const breaksOf = (answer: { body: Record<string, unknown> }) =>
      ((answer.body.data as { breaks: { kind: string }[] }).breaks ?? []).map((b) => b.kind);
    expect(breaksOf(byDefault)).toContain('expectation_missing');
    await server!.stop();

    const countOnly = await start({ allExpected: 'off', breakVerdict: [] });
    const counted = await call(`${countOnly}/api/v1/reports/${day}`, 'GET');
    expect(counted.status).toBe(200);
    expect(breaksOf(counted)).not.toContain('expectation_missing');
    const counts = (counted.body.data as { expectationBreaks: { breaksTheDay: boolean }[] })
      .expectationBreaks;
    expect(counts).toContainEqual({ kind: 'missing', count: 1, breaksTheDay: false });
    expect(counts.filter((c) => c.breaksTheDay)).toEqual([]);
  });

  it('expectations loaded over HTTP keep the unexpected break of an item they do not take', async () => {
    database = await freshDatabase();
    const db = database.db;
    // A transfer nobody expected, settled while all money out is expected: an unexpected break.
    const bonus = item({
      id: 'tr_bonus',
      amount: 9000,
      settledAt: '2026-03-06T10:00:00.000Z',
      counterparty: '221770005555',
    });
    await db.transaction().execute(async (trx) => {
      await settle(trx, bonus);
      await matchSettledItems(trx, [bonus], EXPECTATIONS_NOW, {
        environment: 'sandbox',
        allExpected: 'out',
      });
    });
    const open = async () =>
      (await listBreaks(db, 'sandbox', { state: 'open' })).map((b) => `${b.kind} ${b.item_id}`);
    expect(await open()).toEqual(['unexpected tr_bonus']);

    // A payout of the same amount and window to someone else: it could take the transfer, but
    // its counterparty does not match, so the transfer stays unclaimed.
    const url = await start({ allExpected: 'out', breakVerdict: ['missing'] });
    const loaded = await call(`${url}/api/v1/expectations`, 'POST', [
      {
        expectation_id: 'payout-other',
        direction: 'out',
        currency: 'XOF',
        amount: 9000,
        window_from: '2026-03-01',
        window_to: '2026-03-31',
        counterparty: '221770006666',
      },
    ]);
    expect(loaded.status).toBe(200);
    expect(await open()).toEqual(['unexpected tr_bonus']);
  });
});
