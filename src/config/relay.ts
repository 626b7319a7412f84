import { z } from 'zod';
import { RETRY_SCHEDULE_MS } from '../relay/retry-schedule.defaults.ts';
import {
  duration,
  formatDuration,
  trueOrFalse,
  parseDuration,
  positiveInt,
  type Parsed,
} from './fields.ts';

// The relay of reconciled events to the merchant's endpoints (docs/relay.md).

const hostList = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return [] as string[];
    const hosts = value.split(',').map((host) => host.trim().toLowerCase());
    if (hosts.some((host) => host === '' || /[\s/]/.test(host))) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be host names, IP addresses or CIDR ranges separated by commas, for example 10.0.0.0/8,erp.internal',
      });
      return z.NEVER;
    }
    return hosts;
  });

/**
 * The relay's documented retry schedule (`RETRY_SCHEDULE_MS`, src/relay/retry-schedule.defaults.ts)
 * as the variable writes it: `0s,5s,5m,30m,2h,5h,10h,10h`.
 */
const DEFAULT_RETRY_SCHEDULE = RETRY_SCHEDULE_MS.map(formatDuration).join(',');
/** More attempts than this is a typo, not a schedule. */
const MAX_RETRY_ATTEMPTS = 100;

/**
 * The waits before each attempt of a delivery, the first attempt's included: `0s` first (a
 * delivery is due the moment its event commits), then a positive wait before each retry. Its
 * length is the number of attempts before the delivery gives up.
 */
const retrySchedule = z
  .string()
  .trim()
  .default(DEFAULT_RETRY_SCHEDULE)
  .transform((value, ctx) => {
    const parts = (value === '' ? DEFAULT_RETRY_SCHEDULE : value)
      .split(',')
      .map((part) => part.trim());
    const waits = parts.map((part, i) =>
      i === 0 && /^0+\s*(s|m|h|d)$/.test(part) ? 0 : parseDuration(part),
    );
    if (
      waits[0] !== 0 ||
      waits.length > MAX_RETRY_ATTEMPTS ||
      waits.some((wait) => wait === undefined)
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `must be 0s (the first attempt, at once) then the wait before each retry, separated by commas, at most ${MAX_RETRY_ATTEMPTS} in all, for example ${DEFAULT_RETRY_SCHEDULE}`,
      });
      return z.NEVER;
    }
    return waits as number[];
  });

/** One key of PAYSYNC_SECRETS_KEY: its id (stored with each sealed secret) and 32 bytes, base64. */
export interface SecretsKey {
  readonly id: string;
  readonly key: string;
}

/**
 * `id:base64key[,id:base64key…]`: the first key seals, every key opens. Ids are 1–16 of
 * `A-Za-z0-9_-`; each key is 32 random bytes (`openssl rand -base64 32`).
 */
const secretsKeys = z
  .string()
  .trim()
  .default('')
  .transform((value, context): SecretsKey[] => {
    const keys: SecretsKey[] = [];
    for (const entry of value.split(',').map((part) => part.trim())) {
      if (entry === '') continue;
      const match = /^([A-Za-z0-9_-]{1,16}):([A-Za-z0-9+/]+={0,2})$/.exec(entry);
      if (!match || Buffer.from(match[2]!, 'base64').length !== 32) {
        context.addIssue({
          code: 'custom',
          message:
            'must be id:key entries, comma-separated, each key 32 bytes in base64 (openssl rand -base64 32)',
        });
        return z.NEVER;
      }
      if (keys.some((key) => key.id === match[1])) {
        context.addIssue({ code: 'custom', message: `names the key id "${match[1]}" twice` });
        return z.NEVER;
      }
      keys.push(Object.freeze({ id: match[1]!, key: match[2]! }));
    }
    return keys;
  });

export const RELAY_VARIABLES = {
  /**
   * Keys that encrypt relay endpoint secrets at rest (AES-256-GCM), `id:base64key`, the current
   * one first, older ones after it until every row is re-sealed (`paysync endpoints
   * reseal-secrets`). Without it, sandbox stores secrets in plain text and live refuses to add or
   * rotate an endpoint (docs/relay.md, "Secrets at rest") (secret). @defaultValue none
   */
  PAYSYNC_SECRETS_KEY: secretsKeys,
  /** Allow `http://` endpoint URLs in `live` (sandbox always allows them). @defaultValue false */
  PAYSYNC_RELAY_ALLOW_HTTP: trueOrFalse('false'),
  /**
   * Hosts, addresses or CIDR ranges paysync may deliver to although they are loopback,
   * link-local or private (in `live` those are refused otherwise). @defaultValue none
   */
  PAYSYNC_RELAY_ALLOWED_HOSTS: hostList,
  /** How long one delivery POST may take before it counts as a timeout. @defaultValue `15s` */
  PAYSYNC_RELAY_TIMEOUT: duration('15s'),
  /** Deliveries in flight at once, per process. @defaultValue 16 */
  PAYSYNC_RELAY_CONCURRENCY: positiveInt(16, 1000),
  /**
   * The wait before each attempt of a delivery: `0s` (the first, at once), then before each
   * retry; jitter ±10 % applies. @defaultValue `0s,5s,5m,30m,2h,5h,10h,10h` (`RETRY_SCHEDULE_MS`)
   */
  PAYSYNC_RELAY_RETRY_SCHEDULE: retrySchedule,
  /** An endpoint failing this long is raised as an alert. @defaultValue `1h` */
  PAYSYNC_RELAY_FAILING_ALERT_AFTER: duration('1h'),
  /** An endpoint failing this long is disabled (and an alert raised). @defaultValue `5d` */
  PAYSYNC_RELAY_DISABLE_AFTER: duration('5d'),
};

export interface RelaySettings {
  /** The keys of PAYSYNC_SECRETS_KEY, the sealing one first. @defaultValue [] */
  readonly secretsKeys: readonly SecretsKey[];
  /** @defaultValue false */
  readonly allowHttp: boolean;
  /** Lower-case hosts, addresses or CIDR ranges. @defaultValue [] */
  readonly allowedHosts: readonly string[];
  /** ms. @defaultValue 15000 */
  readonly timeoutMs: number;
  /** @defaultValue 16 */
  readonly concurrency: number;
  /**
   * ms before each attempt, the first (0) included; its length is the attempts a delivery gets.
   * @defaultValue `RETRY_SCHEDULE_MS` (0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)
   */
  readonly retryScheduleMs: readonly number[];
  /** ms. @defaultValue one hour */
  readonly failingAlertAfterMs: number;
  /** ms. @defaultValue five days */
  readonly disableAfterMs: number;
}

export function relaySettings(e: Parsed<typeof RELAY_VARIABLES>): RelaySettings {
  return Object.freeze({
    secretsKeys: Object.freeze([...e.PAYSYNC_SECRETS_KEY]),
    allowHttp: e.PAYSYNC_RELAY_ALLOW_HTTP,
    allowedHosts: Object.freeze([...e.PAYSYNC_RELAY_ALLOWED_HOSTS]),
    timeoutMs: e.PAYSYNC_RELAY_TIMEOUT,
    concurrency: e.PAYSYNC_RELAY_CONCURRENCY,
    retryScheduleMs: Object.freeze([...e.PAYSYNC_RELAY_RETRY_SCHEDULE]),
    failingAlertAfterMs: e.PAYSYNC_RELAY_FAILING_ALERT_AFTER,
    disableAfterMs: e.PAYSYNC_RELAY_DISABLE_AFTER,
  });
}
