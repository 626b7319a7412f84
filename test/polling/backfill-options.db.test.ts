import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill, type BackfillDependencies } from '../../src/polling/index.ts';
import { testDialect } from '../support/test-database.ts';
import { createSweepFixture, type SweepFixture } from './support/sweep-fixture.ts';

/** Section 3: --dry-run writes nothing, a finished backfill reads nothing again, --restart does. */
describe(`backfill options on ${testDialect()}`, () => {
  let fixture: SweepFixture;
  let deps: BackfillDependencies;
  let request: { from: Date; to: Date; kinds: ['intents']; perPage: number };

  beforeAll(async () => {
    fixture = await createSweepFixture();
    const now = fixture.now().getTime();
    request = {
      from: new Date(now - 2 * 86_400_000),
      to: new Date(now - 1),
      kinds: ['intents'],
      perPage: 50,
    };
    fixture.sim.control.seed({
      kind: 'payment_intent',
      count: 150,
      from: request.from.toISOString(),
      to: request.to.toISOString(),
      settle: true,
    });
    deps = {
      db: fixture.database.db,
      upstream: fixture.client,
      logger: pino({ level: 'silent' }),
      environment: 'sandbox',
      now: () => fixture.now(),
    };
  });
  afterAll(async () => {
    await fixture?.cleanup();
  });

  const count = async (table: 'payment_intents' | 'polling_checkpoints' | 'journals') =>
    Number(
      (
        await fixture.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('--dry-run reads and reports what would change, and writes nothing', async () => {
    const report = await runBackfill(deps, { ...request, dryRun: true });
    expect(report.thisRun).toMatchObject({ seen: 150, new: 150, changed: 0, unchanged: 0 });
    expect(Object.keys(report.thisRun.booked)).toEqual(['XOF']);
    expect(await count('payment_intents')).toBe(0);
    expect(await count('journals')).toBe(0);
    expect(await count('polling_checkpoints')).toBe(0);
  });

  it('a finished backfill run again reads nothing; --restart reads it all and changes nothing', async () => {
    const first = await runBackfill(deps, request);
    expect(first.total).toMatchObject({ seen: 150, new: 150 });
    expect(await count('payment_intents')).toBe(150);
    const journals = await count('journals');

    const again = await runBackfill(deps, request);
    expect(again.upstreamCalls).toBe(0);
    expect(again.skippedWindows).toBe(2);
    expect(again.total).toMatchObject({ seen: 150, new: 150 });

    const restarted = await runBackfill(deps, { ...request, restart: true });
    expect(restarted.upstreamCalls).toBeGreaterThan(0);
    expect(restarted.total).toMatchObject({ seen: 150, new: 0, changed: 0, unchanged: 150 });
    expect(await count('journals')).toBe(journals);
  });
});
