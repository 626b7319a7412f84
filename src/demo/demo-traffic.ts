import type { Logger } from 'pino';
import type { RunningSimulator } from '../sim/index.ts';
import type { UpstreamClient } from '../upstream/index.ts';

/** Recipient numbers the sandbox fails (docs/simulator.md, "Sandbox outcomes"). */
const FAILING_RECIPIENTS = ['+221770009901', '+221770009902', '+221770009903', '+221770009904'];
/** Payer numbers the sandbox fails: insufficient_funds, transaction_declined. */
const FAILING_PAYERS = ['+221770000002', '+221770000003'];
/** What the merchant's payouts are for: the transfer's description. */
const PAYOUTS = [
  'Supplier payout',
  'Courier fees',
  'Seller payout',
  'Commission',
  'Salary advance',
];

export interface TrafficCounts {
  intents: number;
  transfers: number;
  refunds: number;
  paymentRefunds: number;
}

export interface DemoTrafficOptions {
  readonly sim: RunningSimulator;
  readonly client: UpstreamClient;
  readonly logger: Logger;
  /** Milliseconds between ticks; each tick creates one intent and one transfer. @defaultValue 500 */
  readonly tickMs?: number;
  /**
   * Simulator time added per tick so items settle in seconds, not minutes. It stops once the
   * simulator clock nears real time, so the service never dates anything in our future.
   * @defaultValue 1000
   */
  readonly advanceMsPerTick?: number;
  /** Items failing on purpose: one in this many (the 2nd, then every this-many-th). @defaultValue 5 */
  readonly failOneIn?: number;
  /** @defaultValue Math.random */
  readonly random?: () => number;
}

export interface DemoTraffic {
  readonly counts: Readonly<TrafficCounts>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * A steady mix of business for the demo: payments (some failing), transfers (some to the
 * sandbox's failing recipients) and, once things settle, refunds of transfers and payments.
 * Transfers and intents are created through the simulator's control surface (the API has no
 * endpoint for them); refunds through the real API, as a merchant would.
 */
export function createDemoTraffic(options: DemoTrafficOptions): DemoTraffic {
  const { sim, client, logger } = options;
  const tickMs = options.tickMs ?? 500;
  const advanceMs = options.advanceMsPerTick ?? 1000;
  const failOneIn = options.failOneIn ?? 5;
  const random = options.random ?? Math.random;
  const counts: TrafficCounts = { intents: 0, transfers: 0, refunds: 0, paymentRefunds: 0 };
  const refunded = new Set<string>();
  const created = { transfer: [] as string[], payment_intent: [] as string[] };
  let tick = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  // Deterministic, so even a few seconds of demo show a failure to explain.
  // Ordinary numbers end in 7: no sandbox outcome (OTP, long pending, failing refund) uses it.
  const fails = (created: number) => created % failOneIn === 2 % failOneIn;

  function createIntent(): void {
    const eur = random() < 0.15;
    const intent = sim.control.createPaymentIntent({
      amount: eur ? between(500, 20_000) : between(1_000, 50_000) * 5,
      currency: eur ? 'EUR' : 'XOF',
      phoneNumber: fails(counts.intents + 1)
        ? pick(FAILING_PAYERS)
        : `+22177${between(100_000, 899_999)}7`,
    });
    created.payment_intent.push(intent.id);
    counts.intents += 1;
  }

  function createTransfer(): void {
    const number = counts.transfers + 1;
    const transfer = sim.control.createTransfer({
      amount: between(2_000, 100_000) * 5,
      currency: 'XOF',
      reference: `PO-${String(number).padStart(5, '0')}`,
      description: `${pick(PAYOUTS)} ${String(number).padStart(5, '0')}`,
      destination: {
        number: fails(number) ? pick(FAILING_RECIPIENTS) : `+22176${between(100_000, 899_999)}7`,
      },
    });
    created.transfer.push(transfer.id);
    counts.transfers += 1;
  }

  /** One refund of a settled transfer, or of a settled payment (half of it), not refunded yet. */
  async function refundSomething(kind: 'transfer' | 'payment_intent'): Promise<void> {
    // A few random candidates rather than a scan of everything: the demo may run for hours.
    const ids = created[kind];
    let item;
    for (let tries = 0; tries < 10 && !item && ids.length > 0; tries += 1) {
      const candidate = sim.control.item(pick(ids));
      if (candidate?.status === 'successful' && !refunded.has(candidate.id)) item = candidate;
    }
    if (!item) return;
    refunded.add(item.id);
    if (kind === 'transfer') {
      await client.createRefund({ transactionId: item.id, reason: 'demo: customer asked' });
      counts.refunds += 1;
    } else {
      const amount = Math.max(1, Math.floor(Number(item.resource.amount) / 2));
      await client.createPaymentRefund(item.id, { amount, reason: 'demo: partial refund' });
      counts.paymentRefunds += 1;
    }
  }

  function advanceClock(): void {
    const ahead = Date.parse(sim.control.now()) - (Date.now() - 60_000);
    const step = Math.min(advanceMs, -ahead);
    if (step > 0) sim.control.advance(step);
  }

  async function onTick(): Promise<void> {
    tick += 1;
    try {
      createIntent();
      createTransfer();
      if (tick % 3 === 0) await refundSomething('transfer');
      if (tick % 4 === 0) await refundSomething('payment_intent');
      advanceClock();
    } catch (error) {
      logger.warn({ err: error }, 'demo traffic: one tick failed; going on');
    }
  }

  return {
    counts,
    start() {
      timer ??= setInterval(() => {
        running = running.then(onTick);
      }, tickMs);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
