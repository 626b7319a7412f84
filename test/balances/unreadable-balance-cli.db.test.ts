import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { snapshotHistory } from '../../src/balances/index.ts';
import { migrateToLatest } from '../../src/db/index.ts';
import { openDiscrepancies, serviceBalancesAsOf } from '../../src/ledger/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

// The first `balances` runs as a real process, to prove the boundary; the other checks of
// output and exit codes run the same program in this process (issue 39).
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import {
  startRecordingServer,
  type RecordingServer,
} from '../upstream/support/recording-server.ts';

/**
 * `paysync balances` against a real HTTP server answering `GET /balance` with bodies that parse
 * but hold no account paysync can read. None of them may be taken as zero balances.
 */
const UNREADABLE: readonly [string, unknown, RegExp][] = [
  [
    'an envelope paysync does not recognise',
    {
      success: true,
      data: { balances: [{ accountType: 'transfer', currency: 'XOF', amount: 2_500_000 }] },
    },
    /no balance it can read: the response names no account type paysync knows \(found balances;/,
  ],
  [
    'a map keyed by currency',
    { balances: { XOF: { collection: { amount: 40_000 }, transfer: { amount: 2_500_000 } } } },
    /no balance it can read: the response names no account type paysync knows \(found XOF;/,
  ],
  [
    'an empty list',
    { balances: [] },
    /the response lists no balance \(an empty answer is not read as zero balances\)/,
  ],
];

const READABLE = {
  balances: [
    { accountType: 'collection', currency: 'XOF', amount: 40_000 },
    { accountType: 'transfer', currency: 'XOF', amount: 2_500_000 },
  ],
};

let server: RecordingServer;
let database: TestDatabase;

function cliEnv(): Record<string, string> {
  return {
    PAYSYNC_DATABASE_URL: database.url,
    PAYSYNC_UPSTREAM_URL: server.url,
    PAYSYNC_API_KEY: 'sk_test_unreadable',
    PAYSYNC_MERCHANT_ID: 'mch_unreadable',
    PAYSYNC_LOG_LEVEL: 'silent',
  };
}

function answer(body: unknown): void {
  server.reply((request) =>
    request.url.pathname === '/balance' ? { status: 200, body } : { status: 404, body: {} },
  );
}

/** What a finance person would look at: discrepancies, snapshots and the service accounts. */
async function books() {
  const open = await openDiscrepancies(database.db);
  return {
    drift: open.filter((d) => d.kind === 'balance_drift'),
    contractErrors: open.filter((d) => d.kind === 'contract_error'),
    snapshots: await snapshotHistory(database.db, { environment: 'sandbox' }),
    ledger: await serviceBalancesAsOf(database.db, new Date(Date.now() + 60_000).toISOString()),
  };
}

const refusal = (problem: RegExp) =>
  new RegExp(
    `^paysync balances: the service's balance could not be read: ${problem.source}.*\\(recorded as discrepancy \\d+; nothing was booked\\)\\n$`,
  );

beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(async () => server?.stop());

describe('paysync balances on a fresh database, when the answer holds no readable account', () => {
  beforeEach(async () => {
    database = await freshDatabase();
    await migrateToLatest(database.db);
  });
  afterEach(async () => database?.cleanup());

  it.each(UNREADABLE)(
    'refuses %s: exit 1, contract_error with the raw body, no opening balance, no snapshot',
    async (_shape, body, problem) => {
      answer(body);
      const result = await runCli(['balances'], { env: cliEnv() });
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(refusal(problem));
      expect(result.code).toBe(1);
      const after = await books();
      expect(after.ledger).toEqual([]);
      expect(after.snapshots).toEqual([]);
      expect(after.drift).toEqual([]);
      expect(after.contractErrors).toHaveLength(1);
      expect(after.contractErrors[0]).toMatchObject({ resourceKind: 'balance' });
      expect(JSON.parse(after.contractErrors[0]!.rawBody!)).toEqual(body);
    },
  );
});

describe('paysync balances on a ledger that holds balances', () => {
  beforeAll(async () => {
    database = await freshDatabase();
    await migrateToLatest(database.db);
    answer(READABLE);
    const opened = await runCliInProcess(['balances'], { env: cliEnv() });
    expect(opened.stderr).toBe('');
    expect(opened.code).toBe(0);
    expect(opened.stdout).toContain('Opening balance booked: service:transfer 2,500,000 XOF');
  });
  afterAll(async () => database?.cleanup());

  it.each(UNREADABLE)(
    'refuses %s without recording drift for the whole ledger balance',
    async (_shape, body, problem) => {
      const before = await books();
      answer(body);
      const result = await runCliInProcess(['balances'], { env: cliEnv() });
      expect(result.stderr).toMatch(refusal(problem));
      expect(result.code).toBe(1);
      const after = await books();
      expect(after.drift).toEqual([]);
      expect(after.snapshots).toEqual(before.snapshots);
      expect(after.ledger).toEqual(before.ledger);
      expect(after.contractErrors).toHaveLength(before.contractErrors.length + 1);
    },
  );

  it('reports an account the answer omits as not answered, never as 0 and never as drift', async () => {
    answer({ balances: [{ accountType: 'collection', currency: 'XOF', amount: 40_000 }] });
    const shown = await runCliInProcess(['balances'], { env: cliEnv() });
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /collection\s+XOF\s+40,000 XOF\s+40,000 XOF\s+0 \(0 XOF\)\s+agrees/,
    );
    expect(shown.stdout).not.toMatch(/transfer\s+XOF\s+0 XOF/);
    expect(shown.stdout).not.toContain('DRIFT');
    expect(shown.stdout).toContain(
      "Not in the service's answer, so not compared (never read as 0): transfer XOF (ledger 2,500,000 XOF)",
    );

    const json = await runCliInProcess(['balances', '--json'], { env: cliEnv() });
    expect(json.code).toBe(0);
    const outcome = JSON.parse(json.stdout) as {
      comparisons: { accountType: string; verdict: string }[];
      unanswered: unknown[];
      driftRecorded: unknown[];
    };
    expect(outcome.comparisons.map((c) => [c.accountType, c.verdict])).toEqual([
      ['collection', 'agrees'],
    ]);
    expect(outcome.unanswered).toEqual([
      {
        accountType: 'transfer',
        account: 'service:transfer',
        currency: 'XOF',
        ledger: 2_500_000,
      },
    ]);
    expect(outcome.driftRecorded).toEqual([]);
    expect((await books()).drift).toEqual([]);

    const cached = await runCliInProcess(['balances', '--cached', '--json'], { env: cliEnv() });
    expect(cached.code).toBe(0);
    const stored = JSON.parse(cached.stdout) as {
      asOf: string;
      comparisons: { accountType: string; service: number; verdict: string; asOf: string }[];
      unanswered: unknown[];
    };
    // One answer with the ops API (issue 41.2): each account's newest snapshot at its own
    // instant, so transfer XOF, which the newest answer omits, is compared at the older answer
    // that listed it, and the newest answer's silence about it is named, never read as 0.
    expect(
      stored.comparisons.map((c) => [c.accountType, c.service, c.verdict, c.asOf === stored.asOf]),
    ).toEqual([
      ['collection', 40_000, 'agrees', true],
      ['transfer', 2_500_000, 'agrees', false],
    ]);
    expect(stored.comparisons[1]!.asOf < stored.asOf).toBe(true);
    expect(stored.unanswered).toEqual([
      {
        accountType: 'transfer',
        account: 'service:transfer',
        currency: 'XOF',
        ledger: 2_500_000,
        asOf: stored.asOf,
      },
    ]);
    const cachedText = await runCliInProcess(['balances', '--cached'], { env: cliEnv() });
    expect(cachedText.code).toBe(0);
    expect(cachedText.stdout).not.toMatch(/transfer\s+XOF\s+0 XOF/);
    expect(cachedText.stdout).toContain(
      "Not in the service's answer, so not compared (never read as 0): transfer XOF (ledger 2,500,000 XOF)",
    );
  });

  it('keeps an open drift of an account the answer omits open, until an answer lists it again', async () => {
    const collection = { accountType: 'collection', currency: 'XOF', amount: 40_000 };
    answer({
      balances: [collection, { accountType: 'transfer', currency: 'XOF', amount: 2_400_000 }],
    });
    const drift = await runCliInProcess(['balances'], { env: cliEnv() });
    expect(drift.code).toBe(0);
    expect(drift.stdout).toContain('unexplained: -100,000 XOF');
    const recorded = (await books()).drift;
    expect(recorded.map((d) => d.resourceId)).toEqual(['sandbox:transfer:XOF']);

    answer({ balances: [collection] });
    const omitted = await runCliInProcess(['balances'], { env: cliEnv() });
    expect(omitted.code).toBe(0);
    expect(omitted.stdout).toContain("Not in the service's answer");
    expect((await books()).drift.map((d) => d.id)).toEqual(recorded.map((d) => d.id));

    answer(READABLE);
    const agrees = await runCliInProcess(['balances'], { env: cliEnv() });
    expect(agrees.code).toBe(0);
    expect(agrees.stdout).not.toContain('DRIFT');
    expect((await books()).drift).toEqual([]);
  });
});
