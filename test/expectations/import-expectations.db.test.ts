import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ExpectationFileError,
  importExpectations,
  openExpectationFile,
  type ExpectationContext,
  type ImportResult,
} from '../../src/expectations/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
const ctx: ExpectationContext = {
  environment: 'sandbox',
  now: () => new Date('2030-01-09T12:00:00.000Z'),
};
const dir = mkdtempSync(join(tmpdir(), 'paysync-expect-import-'));
const DOCS = resolve(import.meta.dirname, '../../docs');

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function load(
  path: string,
  options: { partial?: boolean; dryRun?: boolean; onProgress?: (rows: number) => void } = {},
): Promise<ImportResult> {
  const opened = openExpectationFile(path);
  return importExpectations(database.db, ctx, opened.rows, {
    source: opened.source,
    actor: 'tester',
    timeZone: 'UTC',
    ...options,
  });
}

const count = async () =>
  Number(
    (
      await database.db
        .selectFrom('expectations')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const HEADER = 'expectation_id,direction,currency,amount,window_from,window_to,reference';
const good = (n: number, amount = 1000) =>
  `exp-${n},in,XOF,${amount},2030-01-10,2030-01-11,ref-${n}`;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.cleanup();
});
beforeEach(async () => {
  await database.db.deleteFrom('expectation_history').execute();
  await database.db.deleteFrom('expectations').execute();
});

describe('the sample files in docs/ load as documented', () => {
  it('docs/expectations-sample.csv: a shop, 8 orders (bounds, metadata); again: 0 created', async () => {
    const path = join(DOCS, 'expectations-sample.csv');
    expect(await load(path)).toMatchObject({
      created: 8,
      updated: 0,
      unchanged: 0,
      badCount: 0,
      loaded: true,
    });
    const bounded = await database.db
      .selectFrom('expectations')
      .selectAll()
      .where('expectation_id', '=', 'order-4713')
      .executeTakeFirstOrThrow();
    expect([bounded.amount_min, bounded.amount_max]).toEqual([99000, 100000]);
    const first = await database.db
      .selectFrom('expectations')
      .select(['metadata', 'item_kinds'])
      .where('expectation_id', '=', 'order-4711')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(first.metadata)).toEqual({ channel: 'web', customer: 'C-0088' });
    expect(JSON.parse(first.item_kinds!)).toEqual(['payment_intent', 'payment_link']);
    const history = await database.db
      .selectFrom('expectation_history')
      .select('source')
      .distinct()
      .execute();
    expect(history).toEqual([{ source: 'import:expectations-sample.csv' }]);
    expect(await load(path)).toMatchObject({ created: 0, updated: 0, unchanged: 8 });
  });

  it('docs/expectations-sample.jsonl: a payroll run of 5 payouts', async () => {
    const path = join(DOCS, 'expectations-sample.jsonl');
    expect(await load(path)).toMatchObject({ created: 5, badCount: 0, loaded: true });
    expect(await load(path)).toMatchObject({ created: 0, updated: 0, unchanged: 5 });
    const split = await database.db
      .selectFrom('expectations')
      .select(['allow_split', 'direction', 'metadata'])
      .where('expectation_id', '=', 'payroll-2030-01-10-0005')
      .executeTakeFirstOrThrow();
    expect(split).toMatchObject({ allow_split: 1, direction: 'out' });
    expect(JSON.parse(split.metadata)).toEqual({ employee: 'E-005', hours: 38, team: 'office' });
  });
});

describe('importing a file', () => {
  it('a changed row is an update; the others are unchanged', async () => {
    await load(file('a.csv', [HEADER, good(1), good(2), good(3)].join('\n')));
    const result = await load(
      file('a.csv', [HEADER, good(1), good(2, 1500), good(3), good(4)].join('\n')),
    );
    expect(result).toMatchObject({ created: 1, updated: 1, unchanged: 2, rows: 4 });
    const versions = await database.db
      .selectFrom('expectations')
      .select(['expectation_id', 'version'])
      .orderBy('expectation_id')
      .execute();
    expect(versions.map((v) => v.version)).toEqual([1, 2, 1, 1]);
  });

  it('one bad row: nothing of the file is loaded, and the line says why', async () => {
    const path = file(
      'bad.csv',
      [HEADER, good(1), 'exp-2,in,XOF,25.50,2030-01-10,2030-01-11,r', good(3)].join('\n'),
    );
    const result = await load(path);
    expect(result).toMatchObject({ loaded: false, badCount: 1, created: 0 });
    expect(result.bad).toEqual([
      {
        line: 3,
        field: 'amount',
        reason: expect.stringContaining('whole, non-negative number of minor units'),
      },
    ]);
    expect(await count()).toBe(0);
  });

  it('a bad row after a full batch still loads nothing (one transaction)', async () => {
    const rows = Array.from({ length: 1_200 }, (_, i) => good(i));
    rows.push('exp-x,in,XOF,1,2030-01-10,2030-01-11,r');
    rows.push('exp-y,in,XOF,1,2030-01-12,2030-01-11,r');
    const result = await load(file('late-bad.csv', [HEADER, ...rows].join('\n')));
    expect(result.bad).toEqual([
      { line: 1_203, field: 'window_from', reason: expect.stringContaining('is after window_to') },
    ]);
    expect(await count()).toBe(0);
  });

  it('--partial loads the good rows and lists the bad ones', async () => {
    const path = file(
      'partial.csv',
      [HEADER, good(1), 'exp-2,up,XOF,1,2030-01-10,2030-01-11,r', good(3)].join('\n'),
    );
    const result = await load(path, { partial: true });
    expect(result).toMatchObject({ loaded: true, created: 2, badCount: 1 });
    expect(result.bad[0]).toMatchObject({ line: 3, field: 'direction' });
    expect(await count()).toBe(2);
  });

  it('a duplicate expectation_id inside one file is a bad row naming the first line', async () => {
    const result = await load(file('dup.csv', [HEADER, good(1), good(2), good(1, 5)].join('\n')));
    expect(result.bad).toEqual([
      {
        line: 4,
        field: 'expectation_id',
        reason: '"exp-1" is already on line 2 of this file: each expectation once per file',
      },
    ]);
    expect(await count()).toBe(0);
  });

  it('lists the first 20 bad lines and counts the rest', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => `exp-${i},in,XOF,-1,2030-01-10,2030-01-11,r`);
    const result = await load(file('many-bad.csv', [HEADER, ...rows].join('\n')));
    expect(result.badCount).toBe(25);
    expect(result.bad).toHaveLength(20);
    expect(result.bad[19]!.line).toBe(21);
  });

  it('--dry-run counts what would change and changes nothing', async () => {
    await load(file('d.csv', [HEADER, good(1)].join('\n')));
    const result = await load(file('d.csv', [HEADER, good(1, 2), good(2)].join('\n')), {
      dryRun: true,
    });
    expect(result).toMatchObject({ dryRun: true, loaded: false, created: 1, updated: 1 });
    expect(await count()).toBe(1);
  });

  it('metadata.<key> columns, bounds, kinds and split from CSV cells', async () => {
    const path = file(
      'rich.csv',
      [
        'expectation_id,direction,currency,amount_min,amount_max,window_from,window_to,item_kinds,allow_split,match_group,metadata.customer,metadata.note',
        'inv-9,in,EUR,1000,1200,2030-01-10T08:00:00Z,2030-01-20T08:00:00Z,payment_intent; payment_link,true,g1,C-1,"a, quoted ""note"""',
        'inv-10,in,EUR,1000,1000,2030-01-10,2030-01-20,,,,,',
      ].join('\r\n'),
    );
    expect(await load(path)).toMatchObject({ created: 2, badCount: 0 });
    const row = await database.db
      .selectFrom('expectations')
      .selectAll()
      .where('expectation_id', '=', 'inv-9')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      amount_min: 1000,
      amount_max: 1200,
      allow_split: 1,
      match_group: 'g1',
      window_from: '2030-01-10T08:00:00.000Z',
    });
    expect(JSON.parse(row.metadata)).toEqual({ customer: 'C-1', note: 'a, quoted "note"' });
    const plain = await database.db
      .selectFrom('expectations')
      .select(['metadata', 'item_kinds', 'allow_split'])
      .where('expectation_id', '=', 'inv-10')
      .executeTakeFirstOrThrow();
    expect(plain).toEqual({ metadata: '{}', item_kinds: null, allow_split: 0 });
  });

  it.each([
    [
      'unknown columns, by name',
      'expectation_id,direction,currency,amount,window_from,window_to,colour,size',
      /^unknown columns: colour, size \(/,
    ],
    [
      'amount_major',
      'expectation_id,direction,currency,amount_major,window_from,window_to',
      /^column amount_major is not supported: amounts are whole minor units/,
    ],
    [
      'a missing required column',
      'expectation_id,direction,amount,window_from,window_to',
      /^missing column: currency$/,
    ],
    [
      'no amount column',
      'expectation_id,direction,currency,window_from,window_to',
      /^missing column: amount \(or amount_min and amount_max\)$/,
    ],
  ])('refuses a header with %s, before reading a row', async (_what, header, message) => {
    const path = file('header.csv', `${header}\n${good(1)}\n`);
    const error = await load(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExpectationFileError);
    expect((error as Error).message).toMatch(message);
    expect(await count()).toBe(0);
  });

  it('JSONL: bad JSON, unknown fields and amount_major are bad lines', async () => {
    const ok = (n: number) =>
      JSON.stringify({
        expectation_id: `j-${n}`,
        direction: 'out',
        currency: 'XOF',
        amount: 100,
        window_from: '2030-01-10',
        window_to: '2030-01-10',
        metadata: { n },
      });
    const path = file(
      'p.jsonl',
      [
        ok(1),
        '',
        '{not json',
        JSON.stringify({ ...JSON.parse(ok(2)), colour: 'red' }),
        JSON.stringify({ ...JSON.parse(ok(3)), amount: undefined, amount_major: '1.00' }),
        '[1]',
        ok(4),
      ].join('\n'),
    );
    const result = await load(path, { partial: true });
    expect(result).toMatchObject({ created: 2, badCount: 4 });
    expect(result.bad.map((b) => [b.line, b.field])).toEqual([
      [3, 'line'],
      [4, 'colour'],
      [5, 'amount_major'],
      [6, 'line'],
    ]);
  });

  it('streams a large file in batches and reports progress', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => good(i, 1000 + i));
    const progress: number[] = [];
    const result = await load(file('big.csv', [HEADER, ...rows].join('\n')), {
      onProgress: (n) => progress.push(n),
    });
    expect(result).toMatchObject({ created: 5_000, loaded: true });
    expect(progress.length).toBeGreaterThanOrEqual(10);
    expect(progress.at(-1)).toBe(5_000);
    expect(await count()).toBe(5_000);
    expect(await load(file('big.csv', [HEADER, ...rows].join('\n')))).toMatchObject({
      unchanged: 5_000,
    });
  });

  it('refuses a file that is not .csv or .jsonl, or is missing', () => {
    expect(() => openExpectationFile(file('x.txt', ''))).toThrow(/must end in \.csv or \.jsonl/);
    expect(() => openExpectationFile(join(dir, 'missing.csv'))).toThrow(/cannot read it/);
  });
});
