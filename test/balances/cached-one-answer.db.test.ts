/**
 * Issue 41.2: `paysync balances --cached` and the ops API's `GET /api/v1/balances` read the
 * stored balances through one function (cachedComparison), so they give one answer. They used to
 * combine the same reads differently: the CLI compared only the newest answer's instant, hiding
 * an account that answer omits; the API compared each account's newest snapshot at its own.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CachedComparison } from '../../src/balances/index.ts';
import {
  AuthThrottle,
  createOpsRouter,
  createOpsServer,
  type OpsServer,
} from '../../src/ops/index.ts';
import type { RunningSimulator } from '../../src/sim/index.ts';
import { closeCliBooks, fundedSimulator, openCliBooks } from '../support/cli-books.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect, type TestDatabase } from '../support/test-database.ts';

const TOKEN = 'cached-balances-token-41c2';

/** What both surfaces answer about the stored balances, in the same words. */
interface Answer {
  readonly comparisons: CachedComparison['comparisons'];
  readonly unanswered: CachedComparison['unanswered'];
}

let database: TestDatabase;
let sim: RunningSimulator;
let env: Record<string, string>;
let server: OpsServer;

beforeAll(async () => {
  ({ database, sim, env } = await openCliBooks(fundedSimulator()));
  const logger = pino({ level: 'silent' });
  server = createOpsServer({
    routes: createOpsRouter({
      db: database.db,
      logger,
      now: () => new Date(),
      tokens: [TOKEN],
      environment: 'sandbox',
      timeZone: 'UTC',
      throttle: new AuthThrottle(logger, 10_000),
    }),
    port: 0,
    host: '127.0.0.1',
    logger,
  });
  await server.start();
});

afterAll(async () => {
  await server?.stop();
  await closeCliBooks({ database, sim });
});

async function fromCli(): Promise<Answer & { asOf: string }> {
  const result = await runCliInProcess(['balances', '--cached', '--json'], { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const { asOf, comparisons, unanswered } = JSON.parse(result.stdout) as CachedComparison;
  return { asOf, comparisons, unanswered };
}

async function fromApi(): Promise<Answer> {
  const response = await fetch(`${server.url}/api/v1/balances`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    data: Answer['comparisons'];
    unanswered: Answer['unanswered'];
  };
  return { comparisons: body.data, unanswered: body.unanswered };
}

describe(`cached balances: the CLI and the ops API give one answer, on ${testDialect()}`, () => {
  let first: string;

  it('when the newest snapshot lists every account', async () => {
    const taken = await runCliInProcess(['balances'], { env });
    expect(taken.code).toBe(0);
    const cli = await fromCli();
    first = cli.asOf;
    expect(cli.comparisons).toEqual([
      expect.objectContaining({
        accountType: 'transfer',
        currency: 'XOF',
        asOf: first,
        service: 2_500_000,
        ledger: 2_500_000,
        difference: 0,
        verdict: 'agrees',
      }),
    ]);
    expect(cli.unanswered).toEqual([]);
    expect(await fromApi()).toEqual({ comparisons: cli.comparisons, unanswered: cli.unanswered });
  });

  it('when the newest snapshot omits an account: each is compared at its own newest snapshot', async () => {
    // A newer answer that lists only collection XOF; the ledger holds service:transfer XOF.
    const newest = new Date(Date.parse(first) + 60_000).toISOString();
    await database.db
      .insertInto('balance_snapshots')
      .values({
        environment: 'sandbox',
        account_type: 'collection',
        currency: 'XOF',
        amount: 0,
        as_of: newest,
        taken_at: newest,
        kind: 'manual',
        raw: '{}',
      })
      .execute();
    const cli = await fromCli();
    expect(cli.asOf).toBe(newest);
    // transfer XOF is not hidden: its last listed balance is compared at that answer's instant.
    expect(cli.comparisons).toEqual([
      expect.objectContaining({
        accountType: 'collection',
        currency: 'XOF',
        asOf: newest,
        service: 0,
        ledger: 0,
        verdict: 'agrees',
      }),
      expect.objectContaining({
        accountType: 'transfer',
        currency: 'XOF',
        asOf: first,
        service: 2_500_000,
        ledger: 2_500_000,
        verdict: 'agrees',
      }),
    ]);
    // …and the newest answer's silence about it is said, never read as 0.
    expect(cli.unanswered).toEqual([
      {
        accountType: 'transfer',
        account: 'service:transfer',
        currency: 'XOF',
        ledger: 2_500_000,
        asOf: newest,
      },
    ]);
    expect(await fromApi()).toEqual({ comparisons: cli.comparisons, unanswered: cli.unanswered });

    const text = await runCliInProcess(['balances', '--cached'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Balances as of ${newest}`);
    expect(text.stdout).toMatch(
      new RegExp(
        `^transfer +XOF +2,500,000 XOF +2,500,000 XOF +0 \\(0 XOF\\) +agrees +${first}$`,
        'm',
      ),
    );
    expect(text.stdout).toContain(
      `Not in the service's answer, so not compared (never read as 0): transfer XOF (ledger 2,500,000 XOF); the answer of ${first} listed it, compared above`,
    );
  });
});
