import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAudit, type AuditReport } from '../../src/audit/index.ts';
import { takeBalanceSnapshot } from '../../src/balances/index.ts';
import {
  createDaemonFixture,
  queueBacklog,
  type DaemonFixture,
} from '../processing/support/daemon-fixture.ts';
import { waitForCatchUp, type EndState } from '../processing/support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { testDialect } from '../support/test-database.ts';

/**
 * The auditor against a real run: the daemon (receiver, workers, scheduler) books a mixed
 * workload delivered with duplicated and reordered webhooks, and the audit against the
 * simulator's ground truth must find nothing.
 */
describe(`audit of a real simulated workload on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let state: EndState;
  let report: AuditReport;

  beforeAll(async () => {
    fixture = await createDaemonFixture({
      sim: {
        faults: { webhookDuplicateRate: 0.2, webhookReorderRate: 0.2 },
      },
    });
    await fixture.startDaemon(['receiver', 'workers', 'scheduler']);
    await fixture.registerWebhook();
    // The opening balance stands for the simulator's funding in the ledger.
    await takeBalanceSnapshot({
      db: fixture.database.db,
      upstream: fixture.client,
      logger: pino({ level: 'silent' }),
      environment: 'sandbox',
      now: () => new Date(),
    });
    await generateMixedTraffic(fixture.sim, fixture.client, {
      transfers: 60,
      paymentIntents: 60,
      refunds: 20,
      paymentRefunds: 10,
      backlog: () => queueBacklog(fixture.daemon!),
    });
    state = await waitForCatchUp(fixture.database.db, fixture.sim, 120_000);
    report = await runAudit(fixture.database.db, {
      truth: fixture.sim.control.groundTruth(),
      mode: 'sandbox',
      now: () => new Date(),
    });
  }, 240_000);

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('reports no violation against the truth', () => {
    expect(state.items).toBe(150);
    expect(report.violations).toEqual([]);
    expect(report.clean).toBe(true);
    expect(report.counts.truthItems).toBe(150);
    expect(report.counts.movements).toBeGreaterThan(100);
    expect(report.counts.inboxProcessed).toBeGreaterThan(150);
  });
});
