import type { Balance, MoneyMovement } from '../engine/money-ledger.ts';
import { presentItem } from '../engine/present-item.ts';
import { SimError } from '../engine/sim-error.ts';
import type { AccountType, ItemKind, Mode } from '../engine/sim-resources.ts';
import type { OutcomePlan, SimItem, StatusChange } from '../engine/sim-store.ts';
import { createPaymentIntent } from '../factories/create-payment-intent.ts';
import { createTransfer } from '../factories/create-transfer.ts';
import { startPaymentAttempt } from '../factories/start-payment-attempt.ts';
import type { FaultSettings, FaultSettingsInput } from '../faults/fault-settings.ts';
import { SANDBOX_OTP, WRONG_OTP } from '../sandbox-outcomes.ts';
import type { SimRuntime } from '../sim-runtime.ts';
import type { DeliveryAttempt } from '../webhooks/webhook-dispatcher.ts';
import {
  fundInput,
  injectErrorsInput,
  paymentIntentInput,
  seedInput,
  transferInput,
  type ControlFundInput,
  type ControlInjectErrorsInput,
  type ControlPaymentIntentInput,
  type ControlSeedInput,
  type ControlTransferInput,
} from './control-inputs.ts';
import { seedItems } from './seed-items.ts';

/** An item as the ground truth shows it: the served resource plus what the sandbox knows. */
export interface SimItemView {
  kind: ItemKind;
  id: string;
  mode: Mode;
  status: string;
  resource: Record<string, unknown>;
  history: StatusChange[];
  plan: OutcomePlan;
}

export interface GroundTruth {
  now: string;
  items: SimItemView[];
  movements: readonly MoneyMovement[];
  balances: Record<Mode, Balance[]>;
}

/** The in-process control surface; `/__sim` exposes the same abilities over HTTP. */
export interface SimControl {
  /** The simulator clock, ISO 8601. */
  now(): string;
  /** Moves the clock forward and runs every transition that fell due. */
  advance(ms: number): { now: string; transitions: number };
  /** Drives an item (any id) along allowed transitions to `status` (default: its planned final status). */
  settle(id: string | number, status?: string): SimItemView;
  item(id: string | number): SimItemView | undefined;
  /** Bumps an item's `updatedAt` and emits `<kind>.updated` without changing its status. */
  touch(id: string | number): SimItemView;
  /** Creates a (non-IRT by default) transfer, which the API has no endpoint for. */
  createTransfer(input: ControlTransferInput): SimItemView;
  createPaymentIntent(input: ControlPaymentIntentInput): SimItemView;
  /** A new payment attempt on a failed intent. */
  attemptPayment(id: string, input?: { phoneNumber?: string; otp?: string }): SimItemView;
  /** Answers an intent's OTP `nextAction`: the sandbox OTP succeeds, anything else fails. */
  submitOtp(id: string, otp: string): SimItemView;
  /** Adds (or with a negative amount, removes) money on an account: a `funding` movement. */
  fund(input: ControlFundInput): Balance[];
  balances(mode?: Mode, date?: string): Balance[];
  movements(): readonly MoneyMovement[];
  faults(): FaultSettings;
  setFaults(changes: FaultSettingsInput): FaultSettings;
  /** Answers the next `count` matching requests with `status` and its documented body. */
  injectErrors(input: ControlInjectErrorsInput): void;
  seed(input: ControlSeedInput): { count: number; ids: string[] };
  groundTruth(filter?: { kind?: ItemKind }): GroundTruth;
  /**
   * The JSON of `groundTruth(filter)`, byte for byte, in pieces of about 64 KB, read from the
   * cold store page by page: what `GET /__sim/ground-truth` streams, so a long run's export never
   * sits whole in memory. Nothing moves out of memory until it is read to the end (or returned).
   */
  groundTruthJson(filter?: { kind?: ItemKind }): Generator<string, void, undefined>;
  webhookAttempts(filter?: { eventId?: string; webhookId?: string }): DeliveryAttempt[];
  /** Resolves when no webhook delivery is in flight or waiting for a retry. */
  webhooksIdle(): Promise<void>;
  /**
   * Moves settled items unchanged for `settledInMemoryMs` and old money movements to the cold
   * store now (the simulator also does it every second); answers how many moved.
   */
  moveOut(): { items: number; movements: number };
  /** What the simulator holds in memory and what rests in its cold store. */
  memory(): SimMemory;
  /** Forgets everything (items, money, webhooks, attempts, faults) and funds the accounts again. */
  reset(): void;
}

export interface SimMemory {
  items: { inMemory: number; moved: number };
  movements: { inMemory: number; moved: number };
  /**
   * Attempts listed by `webhookAttempts`, every attempt counted by outcome, and events
   * delivered per webhook (duplicate copies not counted again).
   */
  webhookAttempts: {
    listed: number;
    delivered: number;
    failed: number;
    dropped: number;
    eventsDelivered: number;
  };
  rssBytes: number;
  heapUsedBytes: number;
}

function view(item: SimItem): SimItemView {
  return {
    kind: item.kind,
    id: item.key,
    mode: item.mode,
    status: item.resource.status,
    resource: presentItem(item),
    history: [...item.history],
    plan: item.plan,
  };
}

export function createSimControl(runtime: SimRuntime): SimControl {
  const { engine } = runtime;
  const find = (id: string | number): SimItem => {
    engine.runDue();
    const item = engine.store.find(id);
    if (!item) throw SimError.notFound('Item', id);
    return item;
  };
  const intent = (id: string): SimItem<'payment_intent'> => {
    const item = find(id);
    if (item.kind !== 'payment_intent') throw SimError.notFound('Payment intent', id);
    return item as SimItem<'payment_intent'>;
  };
  const balances = (mode: Mode = 'sandbox', date?: string) =>
    engine.ledger.balances({
      mode,
      atMs: date === undefined ? engine.clock.nowMs() : Date.parse(date),
    });

  return {
    now: () => engine.clock.iso(),
    advance(ms) {
      const transitions = engine.advance(ms);
      return { now: engine.clock.iso(), transitions };
    },
    settle(id, status) {
      const item = find(id);
      engine.settle(item, status ?? item.plan.final);
      return view(item);
    },
    touch(id) {
      const item = find(id);
      engine.touched(item);
      return view(item);
    },
    item(id) {
      engine.runDue();
      const item = engine.store.find(id);
      return item && view(item);
    },
    createTransfer(input) {
      const { mode, ...rest } = transferInput.parse(input);
      return view(createTransfer(engine, mode, rest));
    },
    createPaymentIntent(input) {
      const { mode, phoneNumber, ...rest } = paymentIntentInput.parse(input);
      return view(createPaymentIntent(engine, mode, { ...rest, payerNumber: phoneNumber }));
    },
    attemptPayment(id, input = {}) {
      const item = intent(id);
      return view(
        startPaymentAttempt(
          engine,
          item,
          { payerNumber: input.phoneNumber, otp: input.otp },
          (otp) => otp === SANDBOX_OTP,
        ),
      );
    },
    submitOtp(id, otp) {
      const item = intent(id);
      if (item.resource.status !== 'action_required') {
        throw SimError.conflict(
          `Payment intent ${id} is ${item.resource.status}, not waiting for an OTP`,
        );
      }
      if (otp === SANDBOX_OTP) engine.transition(item, 'processing');
      else {
        item.plan = { ...item.plan, final: 'failed', failureCause: WRONG_OTP };
        engine.transition(item, 'failed');
      }
      return view(item);
    },
    fund(input) {
      const { mode, accountType, currency, amount } = fundInput.parse(input);
      engine.move(mode, accountType as AccountType, currency, amount, 'funding');
      return balances(mode);
    },
    balances: (mode, date) => {
      engine.runDue();
      return balances(mode, date);
    },
    movements: () => engine.ledger.all(),
    faults: () => runtime.faults,
    setFaults: (changes) => runtime.setFaults(changes),
    injectErrors(input) {
      const { count, ...rest } = injectErrorsInput.parse(input);
      runtime.injectedErrors.push({ ...rest, remaining: count });
    },
    seed(input) {
      const items = seedItems(engine, seedInput.parse(input));
      return { count: items.length, ids: items.map((item) => item.key) };
    },
    groundTruth(filter = {}) {
      engine.runDue();
      const items =
        filter.kind === undefined ? engine.store.all() : [...engine.store.list(filter.kind)];
      return {
        now: engine.clock.iso(),
        items: items.map(view),
        movements: engine.ledger.all(),
        balances: { sandbox: balances('sandbox'), live: balances('live') },
      };
    },
    *groundTruthJson(filter = {}) {
      engine.runDue();
      const release = runtime.holdMoveOut();
      try {
        const items = engine.store.snapshot(filter.kind);
        const movements = engine.ledger.snapshot();
        const now = engine.clock.iso();
        const truthBalances = { sandbox: balances('sandbox'), live: balances('live') };
        let buffer = `{"now":${JSON.stringify(now)},"items":[`;
        let first = true;
        for (const item of engine.store.readSnapshot(items)) {
          buffer += (first ? '' : ',') + JSON.stringify(view(item));
          first = false;
          if (buffer.length >= 65_536) {
            yield buffer;
            buffer = '';
          }
        }
        buffer += '],"movements":[';
        first = true;
        for (const movement of engine.ledger.readSnapshot(movements)) {
          buffer += (first ? '' : ',') + JSON.stringify(movement);
          first = false;
          if (buffer.length >= 65_536) {
            yield buffer;
            buffer = '';
          }
        }
        yield `${buffer}],"balances":${JSON.stringify(truthBalances)}}`;
      } finally {
        release();
      }
    },
    webhookAttempts(filter = {}) {
      return runtime.dispatcher
        .list()
        .filter(
          (attempt) =>
            (filter.eventId === undefined || attempt.eventId === filter.eventId) &&
            (filter.webhookId === undefined || attempt.webhookId === filter.webhookId),
        );
    },
    webhooksIdle: () => runtime.dispatcher.idle(),
    moveOut: () => runtime.moveOut(),
    memory() {
      const usage = process.memoryUsage();
      return {
        items: engine.store.counts(),
        movements: engine.ledger.counts(),
        webhookAttempts: {
          listed: runtime.dispatcher.list().length,
          ...runtime.dispatcher.counts(),
        },
        rssBytes: usage.rss,
        heapUsedBytes: usage.heapUsed,
      };
    },
    reset: () => runtime.reset(),
  };
}
