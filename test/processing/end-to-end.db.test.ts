import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, queueBacklog, type DaemonFixture } from './support/daemon-fixture.ts';
import { caughtUp, describeState, waitForCatchUp, type EndState } from './support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';

/**
 * Acceptance 1: 2,000 mixed items through the real receiver, real queues and real workers,
 * with a fifth of the webhooks delivered twice and a fifth held back so later ones overtake
 * them. The end state must match the simulator's ground truth exactly.
 */
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
      transfers: 800,
      paymentIntents: 700,
      refunds: 350,
      paymentRefunds: 150,
      backlog: () => queueBacklog(fixture.daemon!),
    });
    state = await waitForCatchUp(fixture.database.db, fixture.sim, 240_000);
    seconds = (Date.now() - started) / 1000;
  }, 420_000);

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('delivered 2,000 items with duplicates and reordering', () => {
    expect(state.items).toBe(2000);
    expect(state.byKind).toEqual({
      transfer: 800,
      payment_intent: 700,
      refund: 350,
      payment_refund: 150,
    });
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
    // One row per distinct event: every change of 2,000 items, never a duplicate delivery.
    expect(Number(count)).toBeGreaterThan(5000);
    expect(caughtUp(state)).toBe(true);
  });
});
