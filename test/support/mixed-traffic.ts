import type { RunningSimulator } from '../../src/sim/index.ts';
import type { UpstreamClient } from '../../src/upstream/index.ts';
import { until } from './until.ts';

export interface TrafficPlan {
  readonly transfers: number;
  readonly paymentIntents: number;
  readonly refunds: number;
  readonly paymentRefunds: number;
  /** Items created between two clock moves. @defaultValue 25 */
  readonly batch?: number;
  /** Real time between batches, so webhooks arrive as a stream, not one burst. @defaultValue 60 */
  readonly pauseMs?: number;
  /** Called after each batch (e.g. to kill a worker mid-run). */
  readonly onBatch?: (created: number) => Promise<void> | void;
  /**
   * Jobs still waiting; the next batch waits while it is above `maxBacklog`, so a slow
   * machine gets the same traffic, only later. Events keep their duplicates and reordering.
   */
  readonly backlog?: () => Promise<number>;
  /** @defaultValue 300 */
  readonly maxBacklog?: number;
  /**
   * A refund request that failed (a timeout on a loaded machine, say). Without it the traffic
   * throws; with it the traffic goes on, and the simulator's truth says whether it happened.
   */
  readonly onRequestError?: (error: unknown) => void;
  /**
   * The service's mode the items are created in: `live` for the books of a live account (its
   * `client` must then send `Environment: live`, so the refunds are live ones too).
   * @defaultValue `sandbox`
   */
  readonly mode?: 'live' | 'sandbox';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Last four digits that pick a sandbox outcome (docs/simulator.md). */
function recipient(index: number): string {
  const base = `+22177${String(100_000 + index).padStart(6, '0')}`;
  if (index % 10 === 3) return `${base}9901`; // fails: recipient_not_found
  if (index % 10 === 7) return `${base}9902`; // fails: recipient_limit_exceeded
  if (index % 10 === 5) return `${base}9906`; // succeeds; its refund fails
  return `${base}${1000 + (index % 8000)}`; // 1000..8999: no sandbox outcome
}

function payer(index: number): string {
  const base = `+22176${String(100_000 + index).padStart(6, '0')}`;
  if (index % 10 === 4) return `${base}0002`; // fails: insufficient_funds
  if (index % 10 === 8) return `${base}0006`; // succeeds; its payment refunds fail
  return `${base}${5000 + (index % 1000)}`; // 5000..5999: no sandbox outcome
}

/**
 * Drives the simulator through a mix of payment intents, transfers (some failing, some IRT),
 * refunds of successful transfers and payment refunds of successful intents, moving its clock
 * so every item walks its whole life. Returns once every item is in a final state upstream.
 */
export async function generateMixedTraffic(
  sim: RunningSimulator,
  client: UpstreamClient,
  plan: TrafficPlan,
): Promise<void> {
  const batch = plan.batch ?? 25;
  const pauseMs = plan.pauseMs ?? 60;
  const mode = plan.mode ?? 'sandbox';
  let created = 0;
  const step = async () => {
    sim.control.advance(1_500);
    await plan.onBatch?.(created);
    await sleep(pauseMs);
    const { backlog } = plan;
    if (backlog) {
      // Wait out a backlog over the limit, for 30 s at most: then the traffic goes on anyway.
      await until(backlog, {
        accept: (waiting) => waiting <= (plan.maxBacklog ?? 300),
        message: 'the queue backlog to shrink',
        timeoutMs: 30_000,
        intervalMs: 100,
      }).catch(() => undefined);
    }
  };
  const firstWave = Math.max(plan.transfers, plan.paymentIntents);
  for (let start = 0; start < firstWave; start += batch) {
    for (let index = start; index < Math.min(start + batch, firstWave); index += 1) {
      if (index < plan.transfers) {
        sim.control.createTransfer({
          mode,
          amount: 100 * (1 + (index % 400)),
          reference: `e2e-tr-${index}`,
          isIrt: index % 10 === 9,
          destination: { number: recipient(index) },
        });
        created += 1;
      }
      if (index < plan.paymentIntents) {
        sim.control.createPaymentIntent({
          mode,
          amount: 100 * (1 + (index % 300)),
          purchaseReference: `e2e-pi-${index}`,
          customerReference: `customer-${index % 50}`,
          phoneNumber: payer(index),
        });
        created += 1;
      }
    }
    await step();
  }
  sim.control.advance(10_000);
  const truth = sim.control.groundTruth();
  const paidTransfers = truth.items.filter(
    (i) => i.kind === 'transfer' && i.mode === mode && i.status === 'successful',
  );
  const paidIntents = truth.items.filter(
    (i) => i.kind === 'payment_intent' && i.mode === mode && i.status === 'successful',
  );
  const refunds = paidTransfers.slice(0, plan.refunds);
  const paymentRefunds = paidIntents.slice(0, plan.paymentRefunds);
  const secondWave = Math.max(refunds.length, paymentRefunds.length);
  for (let start = 0; start < secondWave; start += batch) {
    const requests: Promise<unknown>[] = [];
    for (let index = start; index < Math.min(start + batch, secondWave); index += 1) {
      const transfer = refunds[index];
      if (transfer)
        requests.push(client.createTransferRefund({ transactionId: transfer.id, reason: 'e2e' }));
      const intent = paymentRefunds[index];
      if (intent) {
        const amount = Number(intent.resource.amount);
        requests.push(
          client.createPaymentRefund(intent.id, { amount: Math.max(1, Math.floor(amount / 2)) }),
        );
      }
    }
    if (plan.onRequestError) {
      for (const outcome of await Promise.allSettled(requests)) {
        if (outcome.status === 'rejected') plan.onRequestError(outcome.reason);
      }
    } else {
      await Promise.all(requests);
    }
    created += requests.length;
    await step();
  }
  sim.control.advance(10_000);
}
