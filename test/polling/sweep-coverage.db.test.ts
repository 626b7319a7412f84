import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sweepCoverage } from '../../src/polling/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => database.cleanup());

async function checkpoint(stream: string, position: string): Promise<void> {
  await database.db
    .insertInto('polling_checkpoints')
    .values({ stream, position, detail: null, updated_at: position })
    .execute();
}

const day = { from: '2026-11-20T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z' };

describe('what the sweeps and backfills vouch for', () => {
  it('covers a day between where sweeping began and its checkpoint, for both lists', async () => {
    for (const kind of ['payment_intent', 'transfer']) {
      await checkpoint(`sweep:${kind}:sandbox:origin`, '2026-11-19T23:50:00.000Z');
      await checkpoint(`sweep:${kind}:sandbox`, '2026-11-21T00:05:00.000Z');
    }
    expect(await sweepCoverage(database.db, 'sandbox')(day)).toBeUndefined();
    expect(await sweepCoverage(database.db, 'live')(day)).toMatch(/no sweep or backfill covered/);
  });

  it('does not vouch for a day before sweeping began, until a backfill covers it', async () => {
    for (const kind of ['payment_intent', 'transfer']) {
      await checkpoint(`sweep:${kind}:sandbox:origin`, '2026-11-20T12:00:00.000Z');
      await checkpoint(`sweep:${kind}:sandbox`, '2026-11-22T00:00:00.000Z');
    }
    expect(await sweepCoverage(database.db, 'sandbox')(day)).toBe(
      `no sweep or backfill covered intents and transfers created in ${day.from} – ${day.to} (see paysync runs); paysync backfill --from ${day.from} --to ${day.to} fills the gap`,
    );
    await checkpoint(
      'backfill:payment_intent:sandbox:2026-11-18T00:00:00.000Z..2026-11-20T23:59:59.999Z',
      '2026-11-21T00:00:00.000Z',
    );
    expect(await sweepCoverage(database.db, 'sandbox')(day)).toMatch(/covered transfers created/);
    // A backfill cut short before the sweep's origin leaves a gap.
    await checkpoint(
      'backfill:transfer:sandbox:2026-11-18T00:00:00.000Z..2026-11-20T23:59:59.999Z',
      '2026-11-20T06:00:00.000Z',
    );
    expect(await sweepCoverage(database.db, 'sandbox')(day)).toMatch(/covered transfers created/);
    await database.db
      .updateTable('polling_checkpoints')
      .set({ position: '2026-11-20T12:00:00.000Z' })
      .where('stream', 'like', 'backfill:transfer:%')
      .execute();
    expect(await sweepCoverage(database.db, 'sandbox')(day)).toBeUndefined();
  });
});
