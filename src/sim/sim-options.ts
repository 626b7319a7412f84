import { randomBytes, randomInt } from 'node:crypto';
import { pino, type Logger } from 'pino';
import type { AccountType, Mode } from './engine/sim-resources.ts';
import { DEFAULT_TIMINGS, type SimTimings } from './engine/sim-timings.ts';
import {
  faultSettingsSchema,
  type FaultSettings,
  type FaultSettingsInput,
} from './faults/fault-settings.ts';

/** Money the merchant's accounts hold when the simulator starts (a `funding` movement). */
export interface InitialBalance {
  accountType: AccountType;
  currency: string;
  amount: number;
  /** @defaultValue both `sandbox` and `live` */
  mode?: Mode;
}

/** Options of {@link startSimulator}. Every field is optional. */
export interface SimulatorOptions {
  /** TCP port; 0 picks a free one. @defaultValue 0 */
  port?: number;
  /** Interface to listen on. @defaultValue `127.0.0.1` */
  host?: string;
  /** The only `ApiKey` accepted. @defaultValue a generated `sk_sandbox_…` key */
  apiKey?: string;
  /** The only `MerchantId` accepted. @defaultValue a generated `mch_…` id */
  merchantId?: string;
  /** Throttle: requests per second on the operations that document 429; 0 = unthrottled. @defaultValue 0 */
  rps?: number;
  /**
   * A fixed Standard Webhooks secret (`whsec_<base64>`) used for every registered webhook, so
   * a daemon can be configured before it registers. @defaultValue a new secret per webhook,
   * returned once as `secret` by POST /webhooks
   */
  webhookSecret?: string;
  /** Seed of ids, sandbox dice and seeded items. @defaultValue a random seed */
  seed?: number;
  /** Where the simulator logs. @defaultValue a silent logger */
  logger?: Logger;
  /** Simulator clock at start. @defaultValue now */
  startAt?: Date;
  /** When true the clock only moves through `advance`. @defaultValue false */
  freezeClock?: boolean;
  /** State timings on the simulator clock. @defaultValue {@link DEFAULT_TIMINGS} */
  timings?: Partial<SimTimings>;
  /** Waits between webhook tries (real ms); its length is the number of retries. @defaultValue [1000, 5000, 30000, 120000, 600000] */
  webhookRetryDelaysMs?: readonly number[];
  /** Per-try webhook timeout (real ms). @defaultValue 5000 */
  webhookTimeoutMs?: number;
  /**
   * Webhook tries in flight at once; more wait their turn. A real service paces deliveries to
   * one endpoint; an unbounded burst (thousands of connections at once) only measures how many
   * sockets the receiver can hold. @defaultValue 200
   */
  webhookConcurrency?: number;
  /**
   * Demand ApiKey + MerchantId + Environment on every operation, including the ones whose
   * documentation lists fewer headers. @defaultValue false (enforce what each operation lists)
   */
  strictCredentials?: boolean;
  /** When false, `Environment: live` gets 403 (or a 500 `live_mode_not_granted`). @defaultValue true */
  liveModeGranted?: boolean;
  /** @defaultValue 1 000 000 000 XOF on transfer and transfer-irt, in both modes */
  initialBalances?: readonly InitialBalance[];
  /** Fault rates at start. @defaultValue none */
  faults?: FaultSettingsInput;
  /** How often (real ms) due transitions run while the clock follows real time. @defaultValue 100 */
  tickIntervalMs?: number;
  /**
   * Settled payment intents, transfers and refunds unchanged for this long (simulator-clock ms)
   * move out of memory to the cold store and answer from there, byte for byte as before.
   * `Infinity` keeps every item in memory. @defaultValue 10000 (10 seconds)
   */
  settledInMemoryMs?: number;
  /**
   * Money movements kept in memory; older ones move to the cold store with the items (balances
   * at the present instant still read running totals, never the file). @defaultValue 10000
   */
  movementsInMemory?: number;
  /**
   * The cold store's SQLite file (emptied at start). @defaultValue a temporary file, deleted
   * when the simulator stops
   */
  coldStorePath?: string;
  /**
   * Webhook delivery attempts listed in detail by the control surface (the newest); older
   * ones are only counted. @defaultValue 10000
   */
  webhookAttemptsKept?: number;
}

export interface ResolvedSimulatorOptions {
  port: number;
  host: string;
  apiKey: string;
  merchantId: string;
  rps: number;
  webhookSecret: string | undefined;
  seed: number;
  logger: Logger;
  startAt: Date | undefined;
  freezeClock: boolean;
  timings: SimTimings;
  webhookRetryDelaysMs: readonly number[];
  webhookTimeoutMs: number;
  webhookConcurrency: number;
  strictCredentials: boolean;
  liveModeGranted: boolean;
  initialBalances: readonly InitialBalance[];
  faults: FaultSettings;
  tickIntervalMs: number;
  settledInMemoryMs: number;
  movementsInMemory: number;
  coldStorePath: string | undefined;
  webhookAttemptsKept: number;
}

/** A sandbox API key of the shape the CLI prints. */
export function generateApiKey(): string {
  return `sk_sandbox_${randomBytes(18).toString('base64url')}`;
}

export function generateMerchantId(): string {
  return `mch_${randomBytes(8).toString('hex')}`;
}

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

const DEFAULT_BALANCES: readonly InitialBalance[] = [
  { accountType: 'transfer', currency: 'XOF', amount: 1_000_000_000 },
  { accountType: 'transfer-irt', currency: 'XOF', amount: 1_000_000_000 },
  { accountType: 'collection', currency: 'XOF', amount: 0 },
  { accountType: 'cross-border', currency: 'XOF', amount: 0 },
];

/** Merges the defaults into `options`: the one place defaults live. */
export function resolveSimulatorOptions(options: SimulatorOptions = {}): ResolvedSimulatorOptions {
  if (
    options.webhookSecret !== undefined &&
    !/^whsec_[A-Za-z0-9+/=]+$/.test(options.webhookSecret)
  ) {
    throw new RangeError('webhookSecret must look like whsec_<base64>');
  }
  if (options.rps !== undefined && (!Number.isFinite(options.rps) || options.rps < 0)) {
    throw new RangeError('rps must be a number >= 0');
  }
  if (
    options.settledInMemoryMs !== undefined &&
    !(options.settledInMemoryMs >= 0) // NaN fails too
  ) {
    throw new RangeError('settledInMemoryMs must be a number >= 0 (Infinity keeps all in memory)');
  }
  for (const name of ['webhookAttemptsKept', 'movementsInMemory'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new RangeError(`${name} must be a whole number >= 0`);
    }
  }
  return {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    apiKey: options.apiKey ?? generateApiKey(),
    merchantId: options.merchantId ?? generateMerchantId(),
    rps: options.rps ?? 0,
    webhookSecret: options.webhookSecret,
    seed: options.seed ?? randomInt(2 ** 31),
    logger: options.logger ?? pino({ level: 'silent' }),
    startAt: options.startAt,
    freezeClock: options.freezeClock ?? false,
    timings: { ...DEFAULT_TIMINGS, ...options.timings },
    webhookRetryDelaysMs: options.webhookRetryDelaysMs ?? [1_000, 5_000, 30_000, 120_000, 600_000],
    webhookTimeoutMs: options.webhookTimeoutMs ?? 5_000,
    webhookConcurrency: options.webhookConcurrency ?? 200,
    strictCredentials: options.strictCredentials ?? false,
    liveModeGranted: options.liveModeGranted ?? true,
    initialBalances: options.initialBalances ?? DEFAULT_BALANCES,
    faults: faultSettingsSchema.parse(options.faults ?? {}),
    tickIntervalMs: options.tickIntervalMs ?? 100,
    settledInMemoryMs: options.settledInMemoryMs ?? 10_000,
    movementsInMemory: options.movementsInMemory ?? 10_000,
    coldStorePath: options.coldStorePath,
    webhookAttemptsKept: options.webhookAttemptsKept ?? 10_000,
  };
}
