import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { httpUrl, nonNegativeInt, optionalText, positiveInt, type Parsed } from './fields.ts';

// The payment service: where it is, who we are to it, and how hard we may call it.

export const SERVICE_VARIABLES = {
  /** The payment service's base address. Needed by commands that call the service. */
  PAYSYNC_UPSTREAM_URL: httpUrl.optional(),
  /** Merchant API key (secret). */
  PAYSYNC_API_KEY: optionalText,
  /** Merchant identifier. */
  PAYSYNC_MERCHANT_ID: optionalText,
  /** `live` or `sandbox`. @defaultValue `sandbox` */
  PAYSYNC_ENVIRONMENT: z
    .enum(['live', 'sandbox'], { error: 'must be one of: live, sandbox' })
    .default('sandbox'),
};

export const UPSTREAM_VARIABLES = {
  /** Requests per second to the service, shared by every process through Redis. @defaultValue 10 */
  PAYSYNC_UPSTREAM_RPS: positiveInt(10, 10_000),
  /** Per-request timeout to the service, in milliseconds. @defaultValue 10000 */
  PAYSYNC_UPSTREAM_TIMEOUT_MS: positiveInt(10_000, 300_000),
  /** Retries of a retryable read before giving up. @defaultValue 8 */
  PAYSYNC_UPSTREAM_MAX_RETRIES: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .max(20, 'must be at most 20')
    .default(8),
  /** Requests in flight to the service from one process. @defaultValue 8 */
  PAYSYNC_UPSTREAM_CONCURRENCY: positiveInt(8, 256),
  /**
   * The receipts' share of the budget, in percent, while the books wait too; receipts take the
   * whole budget when the books are idle, and 0 holds them back until the books are idle.
   * @defaultValue 20
   */
  PAYSYNC_RECEIPTS_BUDGET_PERCENT: nonNegativeInt(20, 100),
};

export type Environment = Parsed<typeof SERVICE_VARIABLES>['PAYSYNC_ENVIRONMENT'];

/** Pace and patience of calls to the service (see src/upstream/client-options.ts). */
export interface UpstreamSettings {
  readonly rps: number;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly concurrency: number;
  /** The receipts' share of the budget while the books wait too, 0 to 1. */
  readonly receiptsShare: number;
}

export function upstreamSettings(e: Parsed<typeof UPSTREAM_VARIABLES>): UpstreamSettings {
  return Object.freeze({
    rps: e.PAYSYNC_UPSTREAM_RPS,
    timeoutMs: e.PAYSYNC_UPSTREAM_TIMEOUT_MS,
    maxRetries: e.PAYSYNC_UPSTREAM_MAX_RETRIES,
    concurrency: e.PAYSYNC_UPSTREAM_CONCURRENCY,
    receiptsShare: e.PAYSYNC_RECEIPTS_BUDGET_PERCENT / 100,
  });
}

/** What a command that talks to the payment service needs, all present. */
export interface ServiceCredentials {
  readonly upstreamUrl: string;
  readonly apiKey: string;
  readonly merchantId: string;
  readonly environment: Environment;
}

/** The part of the config {@link requireServiceCredentials} reads. */
export interface ServiceSettings {
  readonly upstreamUrl: string | undefined;
  readonly apiKey: string | undefined;
  readonly merchantId: string | undefined;
  readonly environment: Environment;
}

/**
 * The credentials a service-calling command needs. Throws {@link ConfigError} naming every
 * missing variable, so the operator fixes them in one go.
 */
export function requireServiceCredentials(config: ServiceSettings): ServiceCredentials {
  const missing: string[] = [];
  if (!config.upstreamUrl) missing.push('PAYSYNC_UPSTREAM_URL');
  if (!config.apiKey) missing.push('PAYSYNC_API_KEY');
  if (!config.merchantId) missing.push('PAYSYNC_MERCHANT_ID');
  if (missing.length > 0) {
    throw new ConfigError(
      missing[0]!,
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set: this command talks to the payment service; set ${missing.length === 1 ? 'it' : 'them'} in the environment or in .env (try \`paysync sim\` for sandbox credentials)`,
    );
  }
  return {
    upstreamUrl: config.upstreamUrl!,
    apiKey: config.apiKey!,
    merchantId: config.merchantId!,
    environment: config.environment,
  };
}
