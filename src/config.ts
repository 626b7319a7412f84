import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';

/** Raised when a `PAYSYNC_*` variable is missing or invalid. The message is one line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'invalid_config' as const;
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/** Variables whose values must never be echoed back, in an error or a log. */
export const SECRET_VARIABLES = [
  'PAYSYNC_API_KEY',
  'PAYSYNC_WEBHOOK_SECRET',
  'PAYSYNC_ADMIN_TOKEN',
] as const;

/** Variables whose values may hold a password inside a URL. */
const URL_VARIABLES_WITH_PASSWORDS = ['PAYSYNC_DATABASE_URL', 'PAYSYNC_REDIS_URL'] as const;

const DEFAULT_DATABASE_URL = 'sqlite:./data/paysync.db';

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const positiveInt = (fallback: number, max = 1_000_000) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .default(fallback);

const httpUrl = z
  .string()
  .trim()
  .refine((value) => /^https?:\/\/[^\s]+$/.test(value) && URL.canParse(value), {
    message: 'must be an http:// or https:// URL, for example https://api.example.com',
  })
  .transform((value) => value.replace(/\/+$/, ''));

/**
 * Every variable paysync reads, with its default. Defaults are merged here and only here.
 * Secrets have no defaults.
 */
const schema = z.object({
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
  /** `sqlite:<path>` or `postgres://…`. @defaultValue `sqlite:./data/paysync.db` */
  PAYSYNC_DATABASE_URL: z
    .string()
    .trim()
    .default(DEFAULT_DATABASE_URL)
    .refine((value) => /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(value), {
      message: 'must be sqlite:<file path> or postgres://user@host:port/database',
    }),
  /** @defaultValue `redis://127.0.0.1:6379` */
  PAYSYNC_REDIS_URL: z
    .string()
    .trim()
    .default('redis://127.0.0.1:6379')
    .refine((value) => /^rediss?:\/\/.+/.test(value), {
      message: 'must be a redis:// or rediss:// URL, for example redis://127.0.0.1:6379',
    }),
  /** Receiver and ops HTTP port. @defaultValue 8080 */
  PAYSYNC_PORT: positiveInt(8080, 65535),
  /** Webhook signing secret(s), comma-separated for rotation (secret). */
  PAYSYNC_WEBHOOK_SECRET: optionalText,
  /** Bearer token for the ops API (secret). */
  PAYSYNC_ADMIN_TOKEN: optionalText,
  /** pino level. @defaultValue `info` */
  PAYSYNC_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of: fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
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
});

type ParsedEnv = z.infer<typeof schema>;

export type Environment = ParsedEnv['PAYSYNC_ENVIRONMENT'];

export interface Config {
  readonly upstreamUrl: string | undefined;
  readonly apiKey: string | undefined;
  readonly merchantId: string | undefined;
  readonly environment: Environment;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly port: number;
  /** Every accepted signing secret; the first one signs, all of them verify. */
  readonly webhookSecrets: readonly string[];
  readonly adminToken: string | undefined;
  readonly logLevel: ParsedEnv['PAYSYNC_LOG_LEVEL'];
  readonly upstream: {
    readonly rps: number;
    readonly timeoutMs: number;
    readonly maxRetries: number;
    readonly concurrency: number;
  };
}

/** What a command that talks to the payment service needs, all present. */
export interface ServiceCredentials {
  readonly upstreamUrl: string;
  readonly apiKey: string;
  readonly merchantId: string;
  readonly environment: Environment;
}

export type EnvSource = Readonly<Record<string, string | undefined>>;

/**
 * The environment as paysync sees it: a `.env` file in `cwd`, if any, under the real
 * environment (real variables win).
 */
export function readEnvironment(
  processEnv: EnvSource = process.env,
  cwd: string = process.cwd(),
): EnvSource {
  const file = resolve(cwd, '.env');
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  return { ...fromFile, ...processEnv };
}

function describeValue(variable: string, value: unknown): string {
  if (value === undefined) return 'is not set';
  if ((SECRET_VARIABLES as readonly string[]).includes(variable)) return 'is invalid';
  let shown = String(value);
  if ((URL_VARIABLES_WITH_PASSWORDS as readonly string[]).includes(variable)) {
    shown = hidePasswordInUrl(shown);
  }
  return `="${shown}" is invalid`;
}

/** `postgres://u:secret@h/db` → `postgres://u:***@h/db`. Leaves other text alone. */
export function hidePasswordInUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]+@/gi, '$1***@');
}

/** Parse and validate once; the result is frozen. Throws {@link ConfigError} naming the variable. */
export function loadConfig(env: EnvSource = readEnvironment()): Config {
  const picked: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) picked[key] = env[key];
  const result = schema.safeParse(picked);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'PAYSYNC_*');
    throw new ConfigError(
      variable,
      `${variable}${describeValue(variable, picked[variable])}: ${issue.message}`,
    );
  }
  const e = result.data;
  const config: Config = {
    upstreamUrl: e.PAYSYNC_UPSTREAM_URL,
    apiKey: e.PAYSYNC_API_KEY,
    merchantId: e.PAYSYNC_MERCHANT_ID,
    environment: e.PAYSYNC_ENVIRONMENT,
    databaseUrl: e.PAYSYNC_DATABASE_URL,
    redisUrl: e.PAYSYNC_REDIS_URL,
    port: e.PAYSYNC_PORT,
    webhookSecrets: Object.freeze(
      (e.PAYSYNC_WEBHOOK_SECRET ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
    adminToken: e.PAYSYNC_ADMIN_TOKEN,
    logLevel: e.PAYSYNC_LOG_LEVEL,
    upstream: Object.freeze({
      rps: e.PAYSYNC_UPSTREAM_RPS,
      timeoutMs: e.PAYSYNC_UPSTREAM_TIMEOUT_MS,
      maxRetries: e.PAYSYNC_UPSTREAM_MAX_RETRIES,
      concurrency: e.PAYSYNC_UPSTREAM_CONCURRENCY,
    }),
  };
  return Object.freeze(config);
}

/**
 * The credentials a service-calling command needs. Throws {@link ConfigError} naming every
 * missing variable, so the operator fixes them in one go.
 */
export function requireServiceCredentials(config: Config): ServiceCredentials {
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

/** Every secret value in the config, so the logger can scrub them wherever they show up. */
export function secretValues(config: Config): string[] {
  return [config.apiKey, config.adminToken, ...config.webhookSecrets].filter(
    (value): value is string => typeof value === 'string' && value.length >= 4,
  );
}
