import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, queueBacklog, type DaemonFixture } from './support/daemon-fixture.ts';
import { caughtUp, describeState, waitForCatchUp, type EndState } from './support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';

/**
 * Acceptance 1: mixed items through the real receiver, real queues and real workers, with a
 * fifth of the webhooks delivered twice and a fifth held back so later ones overtake them. The
 * end state must match the simulator's ground truth exactly. 400 items in `npm test` (the
 * chaos run's short form sends 1,000 more through the same path); `npm run test:acceptance`
 * runs the full 2,000 (PAYSYNC_TEST_E2E_ITEMS, a multiple of 40).
 */
const ITEMS = Number(process.env.PAYSYNC_TEST_E2E_ITEMS ?? 400);
const MIX = {
  transfer: (ITEMS * 2) / 5,
  payment_intent: (ITEMS * 7) / 20,
  refund: (ITEMS * 7) / 40,
  payment_refund: (ITEMS * 3) / 40,
};
describe(`end to end on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let state: EndState;
  let seconds: number;

  beforeAll(async () => {
    fixture = await createDaemonFixture({
      sim: { faults: { webhookDuplicateRate: 0.2, webhookReorderRate: 0.2 } },
    });
    await fixture.startDaemon(['receiver', 'workers', 'scheduler']);
    await fixture.registerWebhook();
    const started = Date.now();
    await generateMixedTraffic(fixture.sim, fixture.client, {
      transfers: MIX.transfer,
      paymentIntents: MIX.payment_intent,
      refunds: MIX.refund,
      paymentRefunds: MIX.payment_refund,
      backlog: () => queueBacklog(fixture.daemon!),
    });
    state = await waitForCatchUp(fixture.database.db, fixture.sim, 240_000);
    seconds = (Date.now() - started) / 1000;
  }, 420_000);

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it(`delivered ${ITEMS.toLocaleString('en-US')} items with duplicates and reordering`, () => {
    expect(state.items).toBe(ITEMS);
    expect(state.byKind).toEqual(MIX);
    const attempts = fixture.sim.control.webhookAttempts();
    const events = new Set(attempts.map((a) => a.eventId)).size;
    const duplicates = attempts.filter((a) => a.duplicate).length;
    const outcomes: Record<string, number> = {};
    for (const a of attempts) {
      const key = `${a.outcome} ${a.statusCode ?? a.error ?? ''}`;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    console.info({ events, duplicates, outcomes });
    expect(duplicates).toBeGreaterThan(events * 0.15);
    console.info(
      `end to end on ${testDialect()}: ${state.items} items caught up in ${seconds.toFixed(1)} s`,
    );
  });

  it("every item's mirror status equals the simulator's", () => {
    expect(state.statusMismatches, JSON.stringify(describeState(state))).toEqual([]);
  });

  it('every journal balances to zero per currency', () => {
    expect(state.unbalancedJournals).toEqual([]);
  });

  it('each settled item has exactly one settlement journal, and no other item has one', () => {
    expect(state.settlementProblems).toEqual([]);
  });

  it('no inbox row is left unprocessed', async () => {
    expect(state.openInbox).toEqual({});
    const { count } = await fixture.database.db
      .selectFrom('webhook_inbox')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    // One row per distinct event: every change of every item, never a duplicate delivery.
    expect(Number(count)).toBeGreaterThan(ITEMS * 2.5);
    expect(caughtUp(state)).toBe(true);
  });
});
