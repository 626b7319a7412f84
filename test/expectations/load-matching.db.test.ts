import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  importExpectations,
  openExpectationFile,
  type ExpectationContext,
} from '../../src/expectations/index.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { item, NOW } from './match-fixtures.ts';
import { ENVIRONMENT, matchingSnapshot, settle } from './support/matching-rows.ts';

/**
 * Matching when expectations are loaded: items that settled BEFORE their expectations were
 * imported or added are matched in the loading transaction.
 */
const ctx: ExpectationContext = { environment: ENVIRONMENT, now: () => new Date(NOW) };
const dir = mkdtempSync(join(tmpdir(), 'paysync-expect-load-match-'));
const HEADER = 'expectation_id,direction,currency,amount,window_from,window_to,reference';
const row = (id: string, reference: string, amount = 25000) =>
  `${id},out,XOF,${amount},2026-03-01,2026-03-19,${reference}`;

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, [HEADER, ...lines].join('\n') + '\n');
  return path;
}

async function load(path: string, options: { dryRun?: boolean } = {}) {
  const opened = openExpectationFile(path);
  return importExpectations(database.db, ctx, opened.rows, {
    source: opened.source,
    actor: 'tester',
    timeZone: 'UTC',
    ...options,
  });
}

const count = async (table: 'expectation_history' | 'expectation_matches' | 'expectations') =>
  Number(
    (
      await database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe(`matching when expectations are loaded, on ${testDialect()}`, () => {
  it('an imported file is matched against what settled before; again: unchanged, nothing rewritten', async () => {
    await settle(database.db, item({ id: 'tr_1', reference: 'pay-1' }));
    await settle(database.db, item({ id: 'tr_2', reference: 'pay-2' }));
    const path = file('payroll.csv', [
      row('pay-1', 'pay-1'),
      row('pay-2', 'pay-2'),
      row('pay-3', 'pay-3'),
    ]);

    expect(await load(path)).toMatchObject({
      created: 3,
      updated: 0,
      unchanged: 0,
      matched: 2,
      partiallyMatched: 0,
      loaded: true,
    });
    const seen = await matchingSnapshot(database.db);
    expect(seen.states.map((s) => [s.expectation_id, s.state, s.matched_amount])).toEqual([
      ['pay-1', 'matched', 25000],
      ['pay-2', 'matched', 25000],
      ['pay-3', 'open', 0],
    ]);
    const id = (e: string) => seen.states.find((s) => s.expectation_id === e)!.id;
    expect(seen.matches.map((m) => [m.expectation, m.item_id, m.amount, m.rule])).toEqual([
      [id('pay-1'), 'tr_1', 25000, 'reference'],
      [id('pay-2'), 'tr_2', 25000, 'reference'],
    ]);
    expect(seen.breaks).toEqual([]);

    // Again: nothing changes, nothing is rewritten (same rows, same times, no new history).
    const before = await database.db
      .selectFrom('expectation_matches')
      .selectAll()
      .orderBy('id')
      .execute();
    const expectationsBefore = await database.db
      .selectFrom('expectations')
      .selectAll()
      .orderBy('id')
      .execute();
    const historyBefore = await count('expectation_history');
    expect(await load(path)).toMatchObject({ created: 0, updated: 0, unchanged: 3, matched: 2 });
    expect(
      await database.db.selectFrom('expectation_matches').selectAll().orderBy('id').execute(),
    ).toEqual(before);
    expect(
      await database.db.selectFrom('expectations').selectAll().orderBy('id').execute(),
    ).toEqual(expectationsBefore);
    expect(await count('expectation_history')).toBe(historyBefore);
  });

  it('a changed row is matched again: its new reference takes the item that settled', async () => {
    await settle(database.db, item({ id: 'tr_3', reference: 'pay-3-fixed' }));
    expect(await load(file('first.csv', [row('pay-3', 'pay-3')]))).toMatchObject({
      created: 1,
      matched: 0,
    });
    expect(await load(file('fixed.csv', [row('pay-3', 'pay-3-fixed')]))).toMatchObject({
      updated: 1,
      matched: 1,
    });
    const seen = await matchingSnapshot(database.db);
    expect(seen.states.map((s) => s.state)).toEqual(['matched']);
    expect(seen.matches.map((m) => m.item_id)).toEqual(['tr_3']);
  });

  it('a shortfall is partially matched with its amount_mismatch break, in the same load', async () => {
    await settle(database.db, item({ id: 'tr_4', reference: 'pay-4', amount: 24000 }));
    expect(await load(file('short.csv', [row('pay-4', 'pay-4')]))).toMatchObject({
      matched: 0,
      partiallyMatched: 1,
    });
    expect((await matchingSnapshot(database.db)).breaks).toEqual([
      expect.objectContaining({ kind: 'amount_mismatch', difference: -1000 }),
    ]);
  });

  it('a dry run counts what would match and leaves nothing behind', async () => {
    await settle(database.db, item({ id: 'tr_5', reference: 'pay-5' }));
    expect(await load(file('dry.csv', [row('pay-5', 'pay-5')]), { dryRun: true })).toMatchObject({
      created: 1,
      matched: 1,
      loaded: false,
      dryRun: true,
    });
    expect(await count('expectations')).toBe(0);
    expect(await count('expectation_matches')).toBe(0);
    expect(await count('expectation_history')).toBe(0);
  });
});

describe(`paysync expect add matches what already settled, on ${testDialect()}`, () => {
  it('says 1 matched (text and --json), and the match row is there', async () => {
    await settle(database.db, item({ id: 'tr_6', reference: 'pay-6' }));
    await settle(database.db, item({ id: 'tr_7', reference: 'pay-7' }));
    const env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_ENVIRONMENT: ENVIRONMENT };
    // In this process (issue 39); expect-cli keeps real processes of `paysync expect`.
    const add = (id: string, ...extra: string[]) =>
      runCliInProcess(
        [
          'expect',
          'add',
          '--id',
          id,
          '--direction',
          'out',
          '--currency',
          'XOF',
          '--amount',
          '25000',
          '--from',
          '2026-03-01',
          '--to',
          '2026-03-19',
          '--reference',
          id,
          ...extra,
        ],
        { env },
      );

    const text = await add('pay-6');
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout.trim()).toBe(
      'expect add: created pay-6 (out 25,000 XOF, version 1, matched); 1 matched',
    );
    const json = await add('pay-7', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      outcome: 'created',
      matched: 1,
      partiallyMatched: 0,
      expectation: { expectation_id: 'pay-7', state: 'matched', matched_amount: 25000 },
    });
    const again = await add('pay-6');
    expect(again.stdout.trim()).toBe(
      'expect add: unchanged pay-6 (out 25,000 XOF, version 1, matched); 1 matched',
    );
    const seen = await matchingSnapshot(database.db);
    expect(seen.matches.map((m) => [m.item_id, m.rule])).toEqual([
      ['tr_6', 'reference'],
      ['tr_7', 'reference'],
    ]);
  });
});
