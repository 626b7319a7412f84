import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXPORT_COLUMNS,
  exportRecord,
  readExportLines,
  writeExport,
  type ExportFormat,
  type ExportProgress,
} from '../../src/exports/index.ts';
import { accountBalances } from '../../src/ledger/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { AWKWARD_REFERENCE, bookWeek, skewOneSnapshot, WEEK } from './support/week-of-books.ts';

type Row = Record<(typeof EXPORT_COLUMNS)[number], string>;
let database: TestDatabase;
const dir = mkdtempSync(join(tmpdir(), 'paysync-export-'));

async function exported(format: ExportFormat, pageSize = 7): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  // A small page size makes the keyset pagination cross many page edges.
  await writeExport(
    { db: database.db, format, window: WEEK, environment: 'sandbox', timeZone: 'UTC', pageSize },
    sink,
  );
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  database = await freshDatabase();
  await bookWeek(database);
});
afterAll(async () => database.cleanup());

describe('11: accounting exports of a simulated week', () => {
  it('acceptance 1: the CSV sums to the ledger per account and currency, and every field round-trips', async () => {
    const text = await exported('csv');
    const records = parse(text, { columns: true }) as Row[];
    expect(Object.keys(records[0]!)).toEqual([...EXPORT_COLUMNS]);
    const sums = new Map<string, number>();
    for (const r of records) {
      const key = `${r.account} ${r.currency}`;
      sums.set(key, (sums.get(key) ?? 0) + Number(r.amount_minor));
    }
    const ledger = await accountBalances(database.db);
    expect(ledger.length).toBeGreaterThan(5);
    expect(Object.fromEntries(sums)).toEqual(
      Object.fromEntries(ledger.map((b) => [`${b.account} ${b.currency}`, b.balance])),
    );
    const expected = [];
    for await (const line of readExportLines(database.db, WEEK)) {
      const record = exportRecord(line, 'sandbox');
      expected.push(
        Object.fromEntries(
          Object.entries(record).map(([k, v]) => [k, v === null ? '' : String(v)]),
        ),
      );
    }
    expect(records).toEqual(expected);
    expect(records.some((r) => r.reference === AWKWARD_REFERENCE)).toBe(true);
    expect(records.some((r) => r.description.includes(AWKWARD_REFERENCE))).toBe(true);
    // Fees are lines of their own.
    expect(records.filter((r) => r.account === 'expenses:transfer-fees').length).toBeGreaterThan(0);
    expect(records.some((r) => r.entry_type === 'reversal' && r.reverses_journal_id !== '')).toBe(
      true,
    );
  });

  it('acceptance 4: XOF has no decimals, EUR two, TND three', async () => {
    const records = parse(await exported('csv'), { columns: true }) as Row[];
    const of = (currency: string) => records.filter((r) => r.currency === currency);
    expect(of('XOF').every((r) => /^-?\d+$/.test(r.amount) && r.amount === r.amount_minor)).toBe(
      true,
    );
    expect(of('EUR').every((r) => /^-?\d+\.\d{2}$/.test(r.amount))).toBe(true);
    expect(of('TND').every((r) => /^-?\d+\.\d{3}$/.test(r.amount))).toBe(true);
    const eur = of('EUR').find((r) => r.amount_minor === '12345');
    expect(eur?.amount).toBe('123.45');
    const journal = await exported('hledger');
    expect(journal).toContain('commodity 1000. XOF');
    expect(journal).toContain('commodity 1000.00 EUR');
    expect(journal).toContain('commodity 1000.000 TND');
  });

  it('--kind keeps the journals of those kinds, whole, across page edges', async () => {
    const all = parse(await exported('csv'), { columns: true }) as Row[];
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    await writeExport(
      {
        db: database.db,
        format: 'csv',
        window: WEEK,
        environment: 'sandbox',
        timeZone: 'UTC',
        kinds: ['transfer'],
        pageSize: 3,
      },
      sink,
    );
    const transfers = parse(Buffer.concat(chunks).toString('utf8'), { columns: true }) as Row[];
    expect(transfers.length).toBeGreaterThan(3);
    expect(transfers).toEqual(all.filter((r) => r.resource_kind === 'transfer'));
  });

  it('reports its progress after each page: lines and journals so far, and how far into the window', async () => {
    const seen: ExportProgress[] = [];
    const result = await writeExport(
      {
        db: database.db,
        format: 'csv',
        window: WEEK,
        environment: 'sandbox',
        timeZone: 'UTC',
        pageSize: 5,
        onProgress: (progress) => seen.push(progress),
      },
      new PassThrough().resume(),
    );
    expect(seen.length).toBe(Math.ceil(result.journals / 5));
    expect(seen.at(-1)).toMatchObject({ rows: result.rows, journals: result.journals });
    const times = seen.map((p) => p.effectiveAt);
    expect(times).toEqual([...times].sort());
    expect(times.every((t) => t >= WEEK.from && t < WEEK.to)).toBe(true);
  });

  it('acceptance 1: JSONL carries the same records, one per line', async () => {
    const lines = (await exported('jsonl'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const csv = parse(await exported('csv'), { columns: true }) as Row[];
    expect(lines).toHaveLength(csv.length);
    expect(lines.map((l) => l.amount_minor)).toEqual(csv.map((r) => Number(r.amount_minor)));
  });

  it('acceptance 2: hledger check --strict accepts the journal, its assertions hold, and bal equals the ledger', async () => {
    const file = join(dir, `week-${process.pid}.journal`);
    writeFileSync(file, await exported('hledger'));
    const text = readFileSync(file, 'utf8');
    expect(text.match(/ = /g)?.length ?? 0).toBeGreaterThan(7);
    execFileSync('hledger', ['-f', file, 'check', '--strict']);
    const csv = execFileSync('hledger', ['-f', file, 'bal', '--flat', '-N', '-O', 'csv'], {
      encoding: 'utf8',
    });
    const totals = parse(csv, { columns: true }) as { account: string; balance: string }[];
    const got = new Map<string, string>();
    for (const t of totals) {
      for (const part of t.balance.split(', ')) {
        const [amount, currency] = part.trim().split(' ');
        got.set(`${t.account} ${currency}`, amount!);
      }
    }
    const ledger = await accountBalances(database.db);
    const { decimalAmount } = await import('../../src/money/index.ts');
    for (const b of ledger) {
      // hledger leaves out an account whose balance is zero.
      if (b.balance === 0) {
        expect(got.get(`${b.account} ${b.currency}`) ?? '0').toMatch(/^0(\.0+)?$/);
        continue;
      }
      expect(got.get(`${b.account} ${b.currency}`), `${b.account} ${b.currency}`).toBe(
        decimalAmount(b.balance, b.currency),
      );
    }
  });

  it('acceptance 3: bean-check accepts the beancount file with its balance directives', async () => {
    const file = join(dir, `week-${process.pid}.beancount`);
    const text = await exported('beancount');
    writeFileSync(file, text);
    expect(text).toContain('2026-11-17 balance Assets:Service:Transfer');
    expect(text).toContain('open Equity:Adjustments:Bank-top-ups');
    const result = spawnSync('bean-check', [file], { encoding: 'utf8' });
    expect(result.stderr + result.stdout).toBe('');
    expect(result.status).toBe(0);
  });

  it('an end-of-day balance the books do not match fails hledger check and bean-check', async () => {
    const hledger = join(dir, `skewed-${process.pid}.journal`);
    const beancount = join(dir, `skewed-${process.pid}.beancount`);
    await skewOneSnapshot(database);
    try {
      writeFileSync(hledger, await exported('hledger'));
      writeFileSync(beancount, await exported('beancount'));
    } finally {
      await sql`update balance_snapshots set amount = amount - 1 where as_of = '2026-11-21T00:00:00.000Z' and currency = 'XOF' and account_type = 'transfer'`.execute(
        database.db,
      );
    }
    const h = spawnSync('hledger', ['-f', hledger, 'check', '--strict'], { encoding: 'utf8' });
    expect(h.status).not.toBe(0);
    expect(h.stderr).toMatch(/balance assertion/i);
    const b = spawnSync('bean-check', [beancount], { encoding: 'utf8' });
    expect(b.status).not.toBe(0);
    expect(b.stdout + b.stderr).toMatch(/Balance failed/i);
  });

  it('acceptance 7: an empty window with valid flags writes a valid empty file; an inverted one exits 2', async () => {
    const env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_LOG_LEVEL: 'silent' };
    for (const format of ['csv', 'hledger', 'beancount'] as const) {
      const out = join(dir, `empty-${format}-${process.pid}`);
      // In this process (issue 39); the refusal and the export to stdout below are real ones.
      const result = await runCliInProcess(
        ['export', '--from', '2020-01-01', '--to', '2020-01-02', '--format', format, '--out', out],
        { env },
      );
      expect(result.stderr).toMatch(/0 lines/);
      expect(result.code).toBe(0);
      if (format === 'csv') expect(readFileSync(out, 'utf8')).toBe(`${EXPORT_COLUMNS.join(',')}\n`);
      if (format === 'hledger') execFileSync('hledger', ['-f', out, 'check', '--strict']);
      if (format === 'beancount') expect(spawnSync('bean-check', [out]).status).toBe(0);
    }
    const inverted = await runCli(['export', '--from', '2026-11-20', '--to', '2026-11-20'], {
      env,
    });
    expect(inverted.code).toBe(2);
    expect(inverted.stderr.trim().split('\n')).toHaveLength(1);
    expect(inverted.stderr).toMatch(/--to .* is not after --from/);
    const stdout = await runCli(['export', '--from', '2026-11-16', '--to', '2026-11-17'], { env });
    expect(stdout.code).toBe(0);
    expect((parse(stdout.stdout, { columns: true }) as unknown[]).length).toBeGreaterThan(10);
  });

  it('fills receipt_sha256 from the receipts table when it exists (the latest receipt of the resource)', async () => {
    // The receipts table belongs to another component's migration (0008); shaped as there.
    await sql`create table if not exists receipts (id integer primary key, resource_kind text not null, resource_id text not null, sha256 text not null, size bigint not null, fetched_at text not null)`.execute(
      database.db,
    );
    await sql`insert into receipts (id, resource_kind, resource_id, sha256, size, fetched_at) values
      (9001, 'transfer', 'tr_0_0', ${'a'.repeat(64)}, 10, '2026-11-16T10:00:00.000Z'),
      (9002, 'transfer', 'tr_0_0', ${'b'.repeat(64)}, 10, '2026-11-16T11:00:00.000Z')`.execute(
      database.db,
    );
    const records = parse(await exported('csv'), { columns: true }) as Row[];
    const receipt = records.filter((r) => r.resource_id === 'tr_0_0').map((r) => r.receipt_sha256);
    expect(new Set(receipt)).toEqual(new Set(['b'.repeat(64)]));
    expect(
      records.filter((r) => r.resource_id === 'tr_0_1').every((r) => r.receipt_sha256 === ''),
    ).toBe(true);
    expect(await exported('hledger')).toContain(`receipt:${'b'.repeat(64)}`);
  });

  it('issue 24: names the expectations each item pays: expectation_id in CSV and JSONL, a tag in hledger, metadata in beancount, and both checks still pass', async () => {
    const { expectation } = await import('../expectations/match-fixtures.ts');
    const { insertExpectation } = await import('../expectations/support/matching-rows.ts');
    const ids: Record<string, number> = {};
    for (const name of ['payroll-B', 'payroll-A', 'order-4711']) {
      const { id: _id, ...fields } = expectation({ expectation_id: name, state: 'matched' });
      ids[name] = await insertExpectation(database.db, fields);
    }
    // Two expected payouts merged into tr_0_0 (many-to-one), one order paid by tr_0_1.
    await database.db
      .insertInto('expectation_matches')
      .values(
        [
          ['payroll-B', 'tr_0_0'],
          ['payroll-A', 'tr_0_0'],
          ['order-4711', 'tr_0_1'],
        ].map(([name, item]) => ({
          expectation: ids[name!]!,
          item_kind: 'transfer',
          item_id: item!,
          amount: 1,
          rule: 'reference' as const,
          late: 0,
          settled_at: '2026-11-16T10:00:00.000Z',
          matched_at: '2026-11-16T10:00:00.000Z',
        })),
      )
      .execute();

    const csv = parse(await exported('csv'), { columns: true }) as Row[];
    expect(Object.keys(csv[0]!).at(-1)).toBe('expectation_id');
    const of = (rows: { resource_id: unknown; expectation_id: unknown }[], id: string) =>
      new Set(rows.filter((r) => r.resource_id === id).map((r) => r.expectation_id));
    expect(of(csv, 'tr_0_0')).toEqual(new Set(['payroll-A;payroll-B']));
    expect(of(csv, 'tr_0_1')).toEqual(new Set(['order-4711']));
    expect(of(csv, 'tr_0_2')).toEqual(new Set(['']));

    const jsonl = (await exported('jsonl'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { resource_id: string; expectation_id: string | null });
    expect(of(jsonl, 'tr_0_0')).toEqual(new Set(['payroll-A;payroll-B']));
    expect(of(jsonl, 'tr_0_2')).toEqual(new Set([null]));

    const hledger = join(dir, `expected-${process.pid}.journal`);
    writeFileSync(hledger, await exported('hledger'));
    execFileSync('hledger', ['-f', hledger, 'check', '--strict']);
    const tagged = execFileSync(
      'hledger',
      ['-f', hledger, 'print', 'tag:expectation=payroll-A', '-O', 'csv'],
      { encoding: 'utf8' },
    );
    const printed = parse(tagged, { columns: true }) as { code: string }[];
    expect(new Set(printed.map((t) => t.code))).toEqual(new Set(['tr_0_0']));

    const beancount = join(dir, `expected-${process.pid}.beancount`);
    const text = await exported('beancount');
    writeFileSync(beancount, text);
    expect(text).toContain('  expectation-id: "payroll-A;payroll-B"\n');
    expect(text).toContain('  expectation-id: "order-4711"\n');
    const checked = spawnSync('bean-check', [beancount], { encoding: 'utf8' });
    expect(checked.stderr + checked.stdout).toBe('');
    expect(checked.status).toBe(0);
  });
});

describe('11: the export never rounds an integer', () => {
  it('fails on an amount past 2^53 instead of writing a rounded one', async () => {
    const own = await freshDatabase();
    try {
      const at = '2026-11-20T10:00:00.000Z';
      const journal = await own.db
        .insertInto('journals')
        .values({
          resource_kind: 'adjustment',
          resource_id: 'adj_huge',
          settlement_key: 'adjustment-1',
          entry_type: 'adjustment',
          reverses_journal_id: null,
          description: 'huge',
          effective_at: at,
          posted_at: at,
          via: 'manual',
          inbox_id: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      // 2^53 + 1 has no exact double: read as a number it would silently become 2^53.
      await sql`insert into journal_lines (journal_id, line_no, account, currency, amount) values
        (${journal.id}, 1, 'service:transfer', 'XOF', 9007199254740993),
        (${journal.id}, 2, 'adjustments:test', 'XOF', -9007199254740993)`.execute(own.db);
      await expect(
        writeExport(
          { db: own.db, format: 'csv', window: WEEK, environment: 'sandbox', timeZone: 'UTC' },
          new PassThrough().resume(),
        ),
      ).rejects.toThrow(/safe integer/);

      // From the command line: one line naming the cause, exit 1, and no file left behind,
      // neither the target nor its partial one.
      const out = join(dir, `huge-${process.pid}.csv`);
      const result = await runCli(['export', '--from', WEEK.from, '--to', WEEK.to, '--out', out], {
        env: { PAYSYNC_DATABASE_URL: own.url, PAYSYNC_LOG_LEVEL: 'silent' },
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/safe integer/);
      expect(readdirSync(dir).filter((name) => name.startsWith(`huge-${process.pid}`))).toEqual([]);
    } finally {
      await own.cleanup();
    }
  });
});

describe('11: pages of journals booked out of effective order', () => {
  it('exports every line once, in (effective time, journal id, line) order, when ids are dense on some pages and scattered on others', async () => {
    const own = await freshDatabase();
    try {
      const at = (minute: number) => new Date(Date.UTC(2026, 10, 16, 0, minute)).toISOString();
      // Journals 1–20 in the order of their effective times (pages of consecutive ids); then
      // 21–26 booked later but effective among them (a backfill), so some pages mix both.
      const minutes = [
        ...Array.from({ length: 20 }, (_, i) => 10 * (i + 1)),
        25,
        55,
        95,
        135,
        175,
        205,
      ];
      for (const [i, minute] of minutes.entries()) {
        const kind = i % 2 === 0 ? 'transfer' : 'payment_intent';
        const journal = await own.db
          .insertInto('journals')
          .values({
            resource_kind: kind,
            resource_id: `${kind === 'transfer' ? 'tr' : 'pi'}_${i}`,
            settlement_key: 'settlement-1',
            entry_type: 'settlement',
            reverses_journal_id: null,
            description: `journal ${i}`,
            effective_at: at(minute),
            posted_at: at(300 + i),
            via: 'manual',
            inbox_id: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await sql`insert into journal_lines (journal_id, line_no, account, currency, amount) values
          (${journal.id}, 1, 'service:transfer', 'XOF', ${100 + i}),
          (${journal.id}, 2, 'adjustments:test', 'XOF', ${-(100 + i)})`.execute(own.db);
      }
      const truth = await sql<{
        journal_id: string;
        line_no: string;
        amount: string;
        kind: string;
      }>`
        select cast(l.journal_id as text) as journal_id, cast(l.line_no as text) as line_no,
          cast(l.amount as text) as amount, j.resource_kind as kind
        from journal_lines l join journals j on j.id = l.journal_id
        order by j.effective_at, j.id, l.line_no`.execute(own.db);
      const window = { from: at(0), to: at(1000) };
      for (const kinds of [undefined, ['transfer']]) {
        const sink = new PassThrough();
        const chunks: Buffer[] = [];
        sink.on('data', (c: Buffer) => chunks.push(c));
        await writeExport(
          {
            db: own.db,
            format: 'csv',
            window,
            environment: 'sandbox',
            timeZone: 'UTC',
            pageSize: 4,
            ...(kinds ? { kinds } : {}),
          },
          sink,
        );
        const records = parse(Buffer.concat(chunks).toString('utf8'), { columns: true }) as Row[];
        expect(records.map((r) => [r.journal_id, r.line_no, r.amount_minor])).toEqual(
          truth.rows
            .filter((t) => !kinds || kinds.includes(t.kind))
            .map((t) => [t.journal_id, t.line_no, t.amount]),
        );
      }
    } finally {
      await own.cleanup();
    }
  });
});
