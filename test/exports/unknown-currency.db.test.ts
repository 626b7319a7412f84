import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMATS, writeExport } from '../../src/exports/index.ts';
import { applyPaymentIntent } from '../../src/ledger/index.ts';
import { paymentIntentFixture } from '../support/resource-fixtures.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

/**
 * An amount is stored in minor units; only the currency's ISO 4217 exponent says where its
 * decimal point goes. A currency the table does not know must stop the export, not be
 * written with a guessed two decimals that would move the amount by a power of ten.
 */
const WINDOW = { from: '2026-11-16T00:00:00.000Z', to: '2026-11-17T00:00:00.000Z' };
const UNKNOWN_CURRENCY = /unknown currency "ZZZ": not an ISO 4217 code/;
let database: TestDatabase;
const dir = mkdtempSync(join(tmpdir(), 'paysync-unknown-currency-'));

beforeAll(async () => {
  database = await freshDatabase();
  await applyPaymentIntent(
    database.db,
    paymentIntentFixture({
      id: 'pi_unknown_currency',
      status: 'successful',
      amount: 150_050,
      currency: 'ZZZ',
      createdAt: '2026-11-16T09:00:00.000Z',
      updatedAt: '2026-11-16T09:01:00.000Z',
    }),
    { via: 'webhook', observedAt: '2026-11-16T09:02:00.000Z' },
  );
});
afterAll(async () => database.cleanup());

describe('an export of a currency with no known minor unit', () => {
  it.each(EXPORT_FORMATS)(
    '%s: fails naming the currency instead of guessing decimals',
    async (format) => {
      const sink = new PassThrough();
      sink.resume();
      await expect(
        writeExport(
          { db: database.db, format, window: WINDOW, environment: 'sandbox', timeZone: 'UTC' },
          sink,
        ),
      ).rejects.toThrow(UNKNOWN_CURRENCY);
    },
  );

  it('paysync export exits 1 with one line naming the currency, and leaves no file', async () => {
    const out = join(dir, 'books.csv');
    // In this process (issue 39); the export tests keep real processes of `paysync export`.
    const result = await runCliInProcess(
      ['export', '--from', '2026-11-16', '--to', '2026-11-17', '--format', 'csv', '--out', out],
      { env: { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_LOG_LEVEL: 'silent' } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(UNKNOWN_CURRENCY);
    expect(existsSync(out)).toBe(false);
  });
});
