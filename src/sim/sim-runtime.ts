import { FUNDED_AT } from './engine/money-ledger.ts';
import { presentForWire } from './engine/present-item.ts';
import { SimEngine, type ItemChange } from './engine/sim-engine.ts';
import type { Mode, WebhookResource } from './engine/sim-resources.ts';
import type { StoredWebhook } from './engine/sim-store.ts';
import {
  faultSettingsSchema,
  type FaultSettings,
  type FaultSettingsInput,
} from './faults/fault-settings.ts';
import { TokenBucket } from './faults/token-bucket.ts';
import { generateWebhookSecret, type ResolvedSimulatorOptions } from './sim-options.ts';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.ts';
import { wantsEvent, type WebhookEvent } from './webhooks/webhook-event.ts';

/** How often (real ms) settled items are looked for to move out of memory. */
const MOVE_OUT_INTERVAL_MS = 1_000;

/** A forced error for the next matching requests (see `control.injectErrors`). */
export interface InjectedError {
  /** 403, 429 or 500 (or 401/404/409 with their documented bodies). */
  status: 401 | 403 | 404 | 409 | 429 | 500;
  /** Only this operation; any operation when absent. */
  operationId?: string;
  /** How many requests it hits. */
  remaining: number;
  /** For 500: the codes of the body. @defaultValue ['internal_error'] */
  codes?: string[];
}

/**
 * One running simulator: the engine, the webhook dispatcher, fault settings and the throttle.
 * The HTTP API, the `/__sim` routes and the in-process control object all act on it.
 */
export class SimRuntime {
  readonly engine: SimEngine;
  readonly dispatcher: WebhookDispatcher;
  readonly throttle: TokenBucket | undefined;
  faults: FaultSettings;
  injectedErrors: InjectedError[] = [];
  private tick: NodeJS.Timeout | undefined;
  private moveOutTimer: NodeJS.Timeout | undefined;
  /** Readers of a snapshot (a streamed ground truth) in progress: nothing moves out meanwhile. */
  private snapshotReaders = 0;

  constructor(readonly options: ResolvedSimulatorOptions) {
    this.engine = new SimEngine({
      merchantId: options.merchantId,
      seed: options.seed,
      timings: options.timings,
      startAt: options.startAt,
      freezeClock: options.freezeClock,
      coldStorePath: options.coldStorePath,
      settledInMemoryMs: options.settledInMemoryMs,
      movementsInMemory: options.movementsInMemory,
      onJobError: (error) =>
        options.logger.error({ err: error }, 'sim scheduled transition failed'),
    });
    this.faults = options.faults;
    this.throttle = options.rps > 0 ? new TokenBucket(options.rps) : undefined;
    this.dispatcher = new WebhookDispatcher({
      retryDelaysMs: options.webhookRetryDelaysMs,
      timeoutMs: options.webhookTimeoutMs,
      concurrency: options.webhookConcurrency,
      attemptsKept: options.webhookAttemptsKept,
      faults: () => this.faults,
      random: () => this.engine.random,
      webhook: (id) => this.engine.store.webhooks.get(id),
      logger: options.logger,
    });
    this.engine.onChange((change) => this.publish(change));
    this.fund();
  }

  start(): void {
    // A frozen clock moves only through advance(): nothing happens on its own, neither due
    // transitions nor moving out (which a test asks for with control.moveOut()). Driven by
    // wall time, moving out would change between two requests of a frozen-clock test what
    // answers from memory and what from the cold store, at an instant no test chooses.
    if (this.options.freezeClock) return;
    // Between requests, never inside one, so no handler holds an item that moves out.
    if (!this.moveOutTimer && Number.isFinite(this.options.settledInMemoryMs)) {
      this.moveOutTimer = setInterval(() => this.moveOut(), MOVE_OUT_INTERVAL_MS);
      this.moveOutTimer.unref();
    }
    if (this.tick) return;
    this.tick = setInterval(() => this.engine.runDue(), this.options.tickIntervalMs);
    this.tick.unref();
  }

  stop(): void {
    if (this.tick) clearInterval(this.tick);
    if (this.moveOutTimer) clearInterval(this.moveOutTimer);
    this.tick = undefined;
    this.moveOutTimer = undefined;
    this.dispatcher.stop();
    this.engine.close();
  }

  /** Moves settled items and old movements out of memory now (see {@link SimEngine.moveOut}). */
  moveOut(): { items: number; movements: number } {
    if (this.snapshotReaders > 0) return { items: 0, movements: 0 };
    try {
      return this.engine.moveOut();
    } catch (error) {
      this.options.logger.error({ err: error }, 'sim could not move items out of memory');
      return { items: 0, movements: 0 };
    }
  }

  /** Holds moving out until the returned function is called (once). */
  holdMoveOut(): () => void {
    this.snapshotReaders += 1;
    let released = false;
    return () => {
      if (!released) this.snapshotReaders -= 1;
      released = true;
    };
  }

  setFaults(changes: FaultSettingsInput): FaultSettings {
    this.faults = faultSettingsSchema.parse({ ...this.faults, ...changes });
    return this.faults;
  }

  registerWebhook(
    mode: Mode,
    input: { url: string; events?: string[] | undefined; description?: string | undefined },
  ): StoredWebhook {
    const now = this.engine.clock.iso();
    const resource: WebhookResource = {
      id: this.engine.nextId('wh'),
      url: input.url,
      events: input.events ?? ['*'],
      enabled: true,
      description: input.description ?? '',
      mode,
      createdAt: now,
      updatedAt: now,
    };
    const stored = { resource, secret: this.options.webhookSecret ?? generateWebhookSecret() };
    this.engine.store.webhooks.set(resource.id, stored);
    return stored;
  }

  /** Back to a fresh start: no items, movements, webhooks, attempts or faults; funding again. */
  reset(): void {
    this.engine.reset();
    this.dispatcher.reset();
    this.faults = this.options.faults;
    this.injectedErrors = [];
    this.fund();
  }

  /**
   * The start-up funding is dated {@link FUNDED_AT}, not when the simulator starts: seeded items
   * may be dated earlier than the start, and a balance asked for their time must already hold
   * the money they spend (or a first snapshot would book no opening balance).
   */
  private fund(): void {
    const { engine } = this;
    const fundedAtMs = Math.min(Date.parse(FUNDED_AT), engine.clock.nowMs());
    for (const balance of this.options.initialBalances) {
      for (const mode of balance.mode ? [balance.mode] : (['sandbox', 'live'] as const)) {
        engine.ledger.hold(mode, balance.accountType, balance.currency);
        if (balance.amount !== 0) {
          engine.clock.pinned(fundedAtMs, () =>
            engine.move(mode, balance.accountType, balance.currency, balance.amount, 'funding'),
          );
        }
      }
    }
  }

  private publish(change: ItemChange): void {
    const { store } = this.engine;
    if (store.webhooks.size === 0) return;
    const targets: string[] = [];
    for (const { resource } of store.webhooks.values()) {
      if (
        resource.enabled &&
        resource.mode === change.item.mode &&
        wantsEvent(resource.events, change.type)
      ) {
        targets.push(resource.id);
      }
    }
    if (targets.length === 0) return;
    const event: WebhookEvent = {
      id: this.engine.nextId('evt'),
      type: change.type,
      createdAt: change.at,
      mode: change.item.mode,
      data: {
        object: presentForWire(change.item),
        ...(change.previousStatus === undefined ? {} : { previousStatus: change.previousStatus }),
      },
    };
    this.dispatcher.publish(event, targets);
  }
}
