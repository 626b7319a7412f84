import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { requireServiceCredentials, type Config } from '../config/index.ts';
import type { Clock } from '../lifecycle/index.ts';
import { soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';
import type { Environment } from './contract/index.ts';

/**
 * The smallest fetch the client needs. Injected, it replaces the client's own `node:http`
 * transport (tests, a custom undici dispatcher); it costs more CPU per request.
 */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options of {@link createUpstreamClient}. Defaults are merged in {@link resolveClientOptions}. */
export interface UpstreamClientOptions {
  /** The service's base address, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** Merchant API key (secret: never logged, never put in an error message). */
  apiKey: string;
  merchantId: string;
  /** @defaultValue `'sandbox'` */
  environment?: Environment;
  /** Per-attempt timeout in milliseconds. @defaultValue 10000 */
  timeoutMs?: number;
  /** Retries of a retryable read (429, 5xx, timeout, network) after the first try. @defaultValue 8 */
  maxRetries?: number;
  /** First back-off delay; later ones grow exponentially with jitter. @defaultValue 200 */
  retryInitialDelayMs?: number;
  /** Ceiling of a back-off delay (a longer `Retry-After` still wins). @defaultValue 10000 */
  retryMaxDelayMs?: number;
  /** Requests in flight from this client at once; more wait in line. @defaultValue 8 */
  concurrency?: number;
  /**
   * Requests per second to the service. With `redis` the budget is shared by every process
   * using the same `rateLimitKey`; without it, it holds for this process only. @defaultValue 10
   */
  rps?: number;
  /**
   * The receipts' share of the budget while the books wait too (`PAYSYNC_RECEIPTS_BUDGET_PERCENT`
   * / 100); receipts take all of it while the books are idle. @defaultValue 0.2
   */
  receiptsShare?: number;
  /** Redis used for the shared rate limit. Without it the limit is in-process. */
  redis?: Redis;
  /**
   * Redis key prefix of the shared limit; the environment and merchant id are appended, so
   * only processes of one deployment share a budget. From the config it is
   * `<PAYSYNC_QUEUE_PREFIX>:upstream:rps`. @defaultValue `'paysync:upstream:rps'`
   */
  rateLimitKey?: string;
  /** Check bodies and queries against the contract before sending. @defaultValue true */
  validateRequests?: boolean;
  /** Debug lines for retries, a warning for credential fall-back. @defaultValue silent */
  logger?: Logger;
  /**
   * Sends every attempt through this fetch instead of the client's own transport.
   * @defaultValue none: `node:http`/`node:https` with a keep-alive agent of `concurrency` sockets
   */
  fetch?: FetchLike;
  /**
   * How long an idle keep-alive socket is kept open (a server's `Keep-Alive: timeout` hint can
   * shorten it). Below the usual 5 s of servers, so we rarely reuse a socket being closed.
   * @defaultValue 4000
   */
  idleSocketTimeoutMs?: number;
  /**
   * Extra certificate authorities (PEM) trusted for an https `baseUrl`, on top of Node's bundled
   * ones (`tls.rootCertificates`), for a service behind a private CA. Without it,
   * `NODE_EXTRA_CA_CERTS` does the same; use one or the other. Ignored with `fetch`.
   * @defaultValue none
   */
  ca?: string;
  /**
   * The clock, resolved where the process is assembled: the documented `from`/`to` defaults of
   * the list operations and an HTTP-date `Retry-After` are read against it.
   */
  now: Clock;
  /**
   * The metrics handle of the tenant whose account this is: in a process serving several
   * (docs/tenants.md), the client's series (`paysync_upstream_*`) carry the tenant's label.
   * @defaultValue the handle of a process of one tenant (no label)
   */
  metrics?: TenantMetrics;
}

export type ResolvedClientOptions = Required<
  Omit<UpstreamClientOptions, 'redis' | 'logger' | 'fetch' | 'ca'>
> &
  Pick<UpstreamClientOptions, 'redis' | 'logger' | 'fetch' | 'ca'>;

export const DEFAULT_CLIENT_OPTIONS = {
  environment: 'sandbox',
  timeoutMs: 10_000,
  maxRetries: 8,
  retryInitialDelayMs: 200,
  retryMaxDelayMs: 10_000,
  concurrency: 8,
  rps: 10,
  receiptsShare: 0.2,
  rateLimitKey: 'paysync:upstream:rps',
  validateRequests: true,
  idleSocketTimeoutMs: 4_000,
  metrics: soleTenantMetrics,
} as const satisfies Partial<UpstreamClientOptions>;

/** The one place defaults are merged. */
export function resolveClientOptions(options: UpstreamClientOptions): ResolvedClientOptions {
  const defined = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as UpstreamClientOptions;
  return {
    ...DEFAULT_CLIENT_OPTIONS,
    ...defined,
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
  };
}

/**
 * Client options from the validated config, on the caller's clock. Throws the config's `ConfigError` naming every
 * missing credential variable.
 */
export function clientOptionsFromConfig(
  config: Config,
  now: Clock,
  redis?: Redis,
  logger?: Logger,
): UpstreamClientOptions {
  const credentials = requireServiceCredentials(config);
  return {
    baseUrl: credentials.upstreamUrl,
    apiKey: credentials.apiKey,
    merchantId: credentials.merchantId,
    environment: credentials.environment,
    timeoutMs: config.upstream.timeoutMs,
    maxRetries: config.upstream.maxRetries,
    concurrency: config.upstream.concurrency,
    rps: config.upstream.rps,
    receiptsShare: config.upstream.receiptsShare,
    rateLimitKey: `${config.processing.queuePrefix}:upstream:rps`,
    now,
    ...(redis ? { redis } : {}),
    ...(logger ? { logger } : {}),
  };
}
