import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { validate as validateCron } from 'node-cron';
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
  'PAYSYNC_ALERT_SMTP_URL',
  'PAYSYNC_ALERT_WEBHOOK_SECRET',
  'PAYSYNC_ALERT_SLACK_URL',
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

/** An HTTP header name, kept lower-case because Node hands headers over lower-cased. */
const headerName = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => /^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(value), {
    message: 'must be an HTTP header name, for example x-signature',
  });

const httpUrl = z
  .string()
  .trim()
  .refine((value) => /^https?:\/\/[^\s]+$/.test(value) && URL.canParse(value), {
    message: 'must be an http:// or https:// URL, for example https://api.example.com',
  })
  .transform((value) => value.replace(/\/+$/, ''));

// ── Alerts (docs/alerts.md) ─────────────────────────────────────────────────────────────
/** The Slack incoming-webhook URL carries its token in the path: a secret too. */
const ALERT_VARIABLES = {
  /** Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat) (secret: the URL holds a token). */
  PAYSYNC_ALERT_SLACK_URL: httpUrl.optional(),
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS) (secret: the password). */
  PAYSYNC_ALERT_SMTP_URL: z
    .string()
    .trim()
    .transform((value) => (value === '' ? undefined : value))
    .optional()
    .refine(
      (value) => value === undefined || (/^smtps?:\/\/[^\s]+$/.test(value) && URL.canParse(value)),
      {
        message: 'must be smtp://user:password@host:port or smtps://user:password@host:port',
      },
    ),
  /** Sender of alert e-mails, for example `paysync <ops@example.com>`. */
  PAYSYNC_ALERT_EMAIL_FROM: optionalText,
  /** Recipients of alert e-mails, comma-separated. */
  PAYSYNC_ALERT_EMAIL_TO: optionalText,
  /** Generic JSON webhook, signed with Standard Webhooks. */
  PAYSYNC_ALERT_WEBHOOK_URL: httpUrl.optional(),
  /** Standard Webhooks secret for the alert webhook, `whsec_<base64>` (secret). */
  PAYSYNC_ALERT_WEBHOOK_SECRET: z
    .string()
    .trim()
    .transform((value) => (value === '' ? undefined : value))
    .optional()
    .refine((value) => value === undefined || /^(whsec_)?[A-Za-z0-9+/]{16,}={0,2}$/.test(value), {
      message: 'must be a Standard Webhooks secret: whsec_ followed by base64 (at least 12 bytes)',
    }),
  /** Routing rules, YAML or JSON (see docs/alerts.md). Without it: transfer_failed and critical alerts go everywhere. */
  PAYSYNC_ALERTS_FILE: optionalText,
  /** The same dedupe key notifies once within this many minutes. @defaultValue 60 */
  PAYSYNC_ALERT_DEDUPE_MINUTES: positiveInt(60, 7 * 24 * 60),
  /** More than this many alerts of one kind within the digest window become one digest. @defaultValue 5 */
  PAYSYNC_ALERT_DIGEST_THRESHOLD: positiveInt(5, 10_000),
  /** The digest window, in minutes. @defaultValue 5 */
  PAYSYNC_ALERT_DIGEST_MINUTES: positiveInt(5, 24 * 60),
  /** An open alert nobody acknowledged notifies again after this many minutes. @defaultValue 240 */
  PAYSYNC_ALERT_RENOTIFY_MINUTES: positiveInt(240, 7 * 24 * 60),
  /** `signature_failures` fires when more than this many webhook signatures are refused within the window. @defaultValue 10 */
  PAYSYNC_ALERT_SIGNATURE_FAILURES: positiveInt(10, 1_000_000),
  /** The window of `PAYSYNC_ALERT_SIGNATURE_FAILURES`, in minutes. @defaultValue 5 */
  PAYSYNC_ALERT_SIGNATURE_MINUTES: positiveInt(5, 24 * 60),
  /** `webhooks_silent` fires when no webhook arrived for this many minutes while sweeps found items. @defaultValue 60 */
  PAYSYNC_WEBHOOK_SILENCE_MINUTES: positiveInt(60, 7 * 24 * 60),
};

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** `90s`, `15m`, `6h`, `7d` → ms; undefined when the text is not one of those. */
function parseDuration(text: string): number | undefined {
  const match = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * DURATION_UNITS_MS[match[2]!]!;
  return ms > 0 ? ms : undefined;
}

const duration = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration such as 30m, 24h or 7d' });
        return z.NEVER;
      }
      return ms;
    });

/** A comma-separated list of durations (the janitor's gaps); empty means "use the default". */
const durationList = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return undefined;
    const gaps = value.split(',').map(parseDuration);
    if (gaps.some((gap) => gap === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be durations separated by commas, for example 1m,5m,15m,1h,6h,24h',
      });
      return z.NEVER;
    }
    return gaps as number[];
  });

/** A node-cron expression, or `off` to turn the task off. */
const cronOrOff = (fallback: string, described?: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .refine((value) => value === 'off' || validateCron(value), {
      message: `must be a cron expression, for example "${fallback}"${described ? ` (${described})` : ''}, or off`,
    });

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
      abort: true,
    })
    .superRefine((value, context) => {
      const problem = value.startsWith('sqlite:') ? undefined : postgresUrlProblem(value);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
  /** @defaultValue `redis://127.0.0.1:6379` */
  PAYSYNC_REDIS_URL: z
    .string()
    .trim()
    .default('redis://127.0.0.1:6379')
    .refine((value) => /^rediss?:\/\/.+/.test(value), {
      message: 'must be a redis:// or rediss:// URL, for example redis://127.0.0.1:6379',
      abort: true,
    })
    .superRefine((value, context) => {
      const problem = redisUrlProblem(value);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
  /** Receiver and ops HTTP port. @defaultValue 8080 */
  PAYSYNC_PORT: positiveInt(8080, 65535),
  /**
   * Port of the small `/metrics`, `/healthz`, `/readyz` server of a process without a receiver
   * (`paysync work`, `paysync schedule`); `start` and `serve` answer them on `PAYSYNC_PORT`.
   * 0 picks a free port (logged). Set, a taken port refuses the start; unset, the default port
   * taken (a second process on the host) is a warning and the process runs without it.
   * @defaultValue {@link DEFAULT_METRICS_PORT}
   */
  PAYSYNC_METRICS_PORT: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(65535, 'must be at most 65535')
    .optional(),
  /** Webhook signing secret(s), comma-separated for rotation (secret). */
  PAYSYNC_WEBHOOK_SECRET: optionalText,
  /**
   * Bearer token(s) for the ops API and dashboard, comma-separated for rotation (secret).
   * Unset: the ops API and dashboard are off (their routes answer 404).
   */
  PAYSYNC_ADMIN_TOKEN: optionalText,
  /** Port of the ops API and dashboard. @defaultValue the receiver's port (`PAYSYNC_PORT`) */
  PAYSYNC_OPS_PORT: z
    .string()
    .trim()
    .transform((value) => (value === '' ? undefined : value))
    .optional()
    .pipe(
      z.coerce
        .number<string | undefined>({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .max(65535, 'must be at most 65535')
        .optional(),
    ),
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
  /** Path the receiver takes webhooks on. @defaultValue `/webhooks` */
  PAYSYNC_WEBHOOK_PATH: z
    .string()
    .trim()
    .default('/webhooks')
    .refine((value) => /^\/[\w.~/-]*$/.test(value), {
      message: 'must be a path starting with /, for example /webhooks',
    }),
  /** How incoming webhooks are signed: `standard` (Standard Webhooks), `hmac` or `none`. @defaultValue `standard` */
  PAYSYNC_WEBHOOK_SCHEME: z
    .enum(['standard', 'hmac', 'none'], { error: 'must be one of: standard, hmac, none' })
    .default('standard'),
  /** `hmac` scheme: the header carrying the signature. @defaultValue `x-signature` */
  PAYSYNC_WEBHOOK_HMAC_HEADER: headerName.default('x-signature'),
  /** `hmac` scheme: how the signature is encoded. @defaultValue `hex` */
  PAYSYNC_WEBHOOK_HMAC_ENCODING: z
    .enum(['hex', 'base64'], { error: 'must be one of: hex, base64' })
    .default('hex'),
  /** `hmac` scheme: a header with the Unix-seconds send time, signed as `<timestamp>.<body>`. */
  PAYSYNC_WEBHOOK_HMAC_TIMESTAMP_HEADER: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    headerName.optional(),
  ),
  /** Lets the `none` scheme run when `PAYSYNC_ENVIRONMENT=live`. @defaultValue false */
  PAYSYNC_ALLOW_UNSIGNED: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((value) => value === 'true'),
  /** Largest webhook body accepted, in bytes; larger ones get 413. @defaultValue 262144 (256 KB) */
  PAYSYNC_WEBHOOK_MAX_BYTES: positiveInt(256 * 1024, 16 * 1024 * 1024),
  /** BullMQ key prefix; processes of one deployment share it. @defaultValue `paysync` */
  PAYSYNC_QUEUE_PREFIX: z
    .string()
    .trim()
    .default('paysync')
    .refine((value) => /^[\w.:-]{1,100}$/.test(value), {
      message: 'must be letters, digits, and . _ : - only, for example paysync',
    }),
  /** Jobs one worker process runs at once, per queue. @defaultValue 8 */
  PAYSYNC_WORKER_CONCURRENCY: positiveInt(8, 256),
  /** A job's lock; a worker that dies mid-job has it retried after this long. @defaultValue 30000 */
  PAYSYNC_JOB_LOCK_MS: positiveInt(30_000, 600_000).refine((value) => value >= 1000, {
    message: 'must be at least 1000',
  }),
  /** How long SIGTERM waits for in-flight jobs before exiting anyway. @defaultValue 30000 */
  PAYSYNC_SHUTDOWN_TIMEOUT_MS: positiveInt(30_000, 600_000),
  /** Inbox rows not processed this long after arrival are enqueued again. @defaultValue 300 */
  PAYSYNC_RECOVERY_AFTER_SECONDS: positiveInt(300, 86_400),
  /** When the inbox recovery sweep runs (cron, optional seconds field, or `off`). @defaultValue every minute */
  PAYSYNC_RECOVERY_CRON: cronOrOff('* * * * *', 'every minute'),
  /**
   * An outbox row (alert, receipt) handed to the queue this long ago and still not consumed is
   * handed out again: Redis may have lost its job. @defaultValue 300
   */
  PAYSYNC_OUTBOX_REDISPATCH_SECONDS: positiveInt(300, 86_400),
  /** How far back a transfer known only by id is searched for. @defaultValue 72 */
  PAYSYNC_TRANSFER_SEARCH_HOURS: positiveInt(72, 24 * 366),
  ...ALERT_VARIABLES,
  /** When the janitor queues due polls (cron), or `off`. @defaultValue every minute */
  PAYSYNC_JANITOR_CRON: cronOrOff('* * * * *'),
  /** Most polls one janitor run queues. @defaultValue 5000 */
  PAYSYNC_JANITOR_BATCH: positiveInt(5000, 1_000_000),
  /** Gaps between polls of a non-terminal item, the last one repeating. @defaultValue `1m,5m,15m,1h,6h,24h` */
  PAYSYNC_JANITOR_SCHEDULE: durationList,
  /** The same, for payment intents only. @defaultValue `PAYSYNC_JANITOR_SCHEDULE` */
  PAYSYNC_JANITOR_SCHEDULE_INTENTS: durationList,
  /** The same, for transfers only. @defaultValue `PAYSYNC_JANITOR_SCHEDULE` */
  PAYSYNC_JANITOR_SCHEDULE_TRANSFERS: durationList,
  /** The same, for refunds and payment refunds. @defaultValue `PAYSYNC_JANITOR_SCHEDULE` */
  PAYSYNC_JANITOR_SCHEDULE_REFUNDS: durationList,
  /** A transfer non-terminal this long after creation is `stuck`. @defaultValue `24h` */
  PAYSYNC_STUCK_TRANSFER_AFTER: duration('24h'),
  /** A payment intent non-terminal this long after creation is `stuck`. @defaultValue `48h` */
  PAYSYNC_STUCK_INTENT_AFTER: duration('48h'),
  /** A refund non-terminal this long after creation is `stuck`. @defaultValue `72h` */
  PAYSYNC_STUCK_REFUND_AFTER: duration('72h'),
  /** A refund in `pending_manual` this long after creation is `stuck`. @defaultValue `7d` */
  PAYSYNC_STUCK_PENDING_MANUAL_AFTER: duration('7d'),
  /** The time zone whose midnights close the books' days (IANA name). @defaultValue `UTC` */
  PAYSYNC_BOOKS_TIMEZONE: z
    .string()
    .trim()
    .default('UTC')
    .refine((value) => isTimeZone(value), {
      message: 'must be an IANA time zone such as UTC, Africa/Abidjan or Europe/Paris',
    }),
  /** When balances are snapshotted (and missed end-of-day snapshots filled in). @defaultValue hourly */
  PAYSYNC_BALANCE_CRON: cronOrOff('0 * * * *'),
  /** When closed days get their verdict. @defaultValue 20 past every hour */
  PAYSYNC_VERDICT_CRON: cronOrOff('20 * * * *'),
  /** When yesterday's books are exported to PAYSYNC_EXPORT_DIR, in PAYSYNC_BOOKS_TIMEZONE. @defaultValue `0 2 * * *` */
  PAYSYNC_EXPORT_CRON: cronOrOff('0 2 * * *'),
  /** Formats of the scheduled and close-time exports, comma-separated. @defaultValue `csv` */
  PAYSYNC_EXPORT_FORMATS: z
    .string()
    .trim()
    .default('csv')
    .transform((value) =>
      value
        .split(',')
        .map((f) => f.trim())
        .filter((f) => f !== ''),
    )
    .refine(
      (formats) =>
        formats.length > 0 &&
        formats.every((f) => ['csv', 'jsonl', 'hledger', 'beancount'].includes(f)),
      { message: 'must be a comma-separated list of csv, jsonl, hledger, beancount' },
    ),
  /** The export folder: daily files and closed periods' frozen files. @defaultValue `./data/exports/` */
  PAYSYNC_EXPORT_DIR: z.string().trim().min(1).default('./data/exports/'),
  /** Low-balance thresholds: `transfer:XOF:1000000,transfer-irt:EUR:50000`. @defaultValue none */
  PAYSYNC_LOW_BALANCE: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      const parsed = parseLowBalanceThresholds(value);
      if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
    }),
  /** Where receipt HTML is archived, one file per sha256. @defaultValue `./data/receipts/` */
  PAYSYNC_RECEIPTS_DIR: z.string().trim().min(1).default('./data/receipts/'),

  // Polling (docs/processing.md, "Sweeps and backfill"; docs/cli.md `runs`, `sweep`, `backfill`).
  /** When the list sweep for missed webhooks runs (cron or `off`). @defaultValue every 5 minutes */
  PAYSYNC_SWEEP_CRON: cronOrOff('*/5 * * * *', 'every 5 minutes'),
  /** How far before its last checkpoint a sweep starts again, in minutes. @defaultValue 10 */
  PAYSYNC_SWEEP_OVERLAP_MINUTES: positiveInt(10, 7 * 24 * 60),
  /** Items asked per list request by sweeps and backfills. @defaultValue 100 */
  PAYSYNC_LIST_PER_PAGE: positiveInt(100, 1000),
  /** Payment-refund ids a sweep may ask about to find lost ones; 0 turns it off. @defaultValue 50 */
  PAYSYNC_PAYMENT_REFUND_PROBES: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .max(10_000, 'must be at most 10000')
    .default(50),
  /** Length of one backfill window, in hours. @defaultValue 24 */
  PAYSYNC_BACKFILL_WINDOW_HOURS: positiveInt(24, 24 * 31),
  /** Requests per second a backfill may take of the shared budget. @defaultValue half of PAYSYNC_UPSTREAM_RPS */
  PAYSYNC_BACKFILL_RPS: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(10_000, 'must be at most 10000')
      .optional(),
  ),
  /** A running scheduled run with no heartbeat this long is dead; the next run marks it failed. @defaultValue 120 */
  PAYSYNC_RUN_STALE_SECONDS: positiveInt(120, 86_400),
});

/** Where `work` and `schedule` serve `/metrics` when `PAYSYNC_METRICS_PORT` is not set. */
export const DEFAULT_METRICS_PORT = 9464;

/** The janitor's default gaps: 1 m, 5 m, 15 m, 1 h, 6 h, then every 24 h. */
const DEFAULT_JANITOR_GAPS_MS: readonly number[] = [
  60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000,
];

type ParsedEnv = z.infer<typeof schema>;

export type Environment = ParsedEnv['PAYSYNC_ENVIRONMENT'];

/** Balance snapshots, low-balance thresholds and the daily verdict (see docs/balances.md). */
export interface BalanceSettings {
  /** IANA zone of the books' days. @defaultValue `UTC` */
  readonly timeZone: string;
  /** Cron of the snapshot task, or `off`. @defaultValue `0 * * * *` */
  readonly cron: string;
  /** Cron of the verdict task, or `off`. @defaultValue `20 * * * *` */
  readonly verdictCron: string;
  /** @defaultValue [] */
  readonly lowBalance: readonly LowBalanceThreshold[];
}

/** A low-balance threshold: warn when `accountType` in `currency` goes under `minimum`. */
export interface LowBalanceThreshold {
  readonly accountType: string;
  readonly currency: string;
  /** Minor units. */
  readonly minimum: number;
}

/**
 * Parses `PAYSYNC_LOW_BALANCE`: `transfer:XOF:1000000,transfer-irt:EUR:50000`. Returns the
 * thresholds, or a one-line reason naming the bad entry.
 */
export function parseLowBalanceThresholds(
  text: string | undefined,
): { thresholds: LowBalanceThreshold[] } | { problem: string } {
  const thresholds: LowBalanceThreshold[] = [];
  for (const entry of (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^(collection|transfer|transfer-irt|cross-border):([A-Za-z]{3}):(\d{1,15})$/.exec(
      entry,
    );
    if (!match) {
      return {
        problem: `"${entry}" is not <account type>:<currency>:<minor units>, e.g. transfer:XOF:1000000 (account types: collection, transfer, transfer-irt, cross-border)`,
      };
    }
    thresholds.push({
      accountType: match[1]!,
      currency: match[2]!.toUpperCase(),
      minimum: Number(match[3]),
    });
  }
  return { thresholds };
}

/** True when `timeZone` is an IANA zone this Node.js knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

export interface Config {
  readonly upstreamUrl: string | undefined;
  readonly apiKey: string | undefined;
  readonly merchantId: string | undefined;
  readonly environment: Environment;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly port: number;
  /**
   * Metrics and health port of a process without a receiver (see docs/metrics.md); undefined
   * when `PAYSYNC_METRICS_PORT` is not set ({@link DEFAULT_METRICS_PORT}, best effort).
   */
  readonly metricsPort: number | undefined;
  /** Every accepted signing secret; the first one signs, all of them verify. */
  readonly webhookSecrets: readonly string[];
  readonly adminToken: string | undefined;
  /** The ops API and dashboard (see docs/ops.md). */
  readonly ops: OpsSettings;
  readonly logLevel: ParsedEnv['PAYSYNC_LOG_LEVEL'];
  readonly upstream: {
    readonly rps: number;
    readonly timeoutMs: number;
    readonly maxRetries: number;
    readonly concurrency: number;
  };
  /** How the receiver takes webhooks (see docs/receiver.md). */
  readonly webhook: WebhookSettings;
  /** How workers and the scheduler process events (see docs/processing.md). */
  readonly processing: ProcessingSettings;
  /** Where alerts go and how often (see docs/alerts.md). */
  readonly alerts: AlertSettings;
  /** Re-polling of non-terminal items and stuck detection (see docs/processing.md). */
  readonly janitor: JanitorSettings;
  readonly balances: BalanceSettings;
  /** Receipt archive (see docs/receipts.md). */
  readonly receipts: { /** @defaultValue `./data/receipts/` */ readonly dir: string };
  /** Sweeps, backfills and scheduled-run records (see docs/processing.md). */
  readonly polling: PollingSettings;
  /** Scheduled exports and closed periods' files (see docs/exports.md). */
  readonly exports: ExportSettings;
}

/** Alert sinks and pacing, from `PAYSYNC_ALERT*` (docs/alerts.md). */
export interface AlertSettings {
  readonly slackUrl: string | undefined;
  readonly smtpUrl: string | undefined;
  readonly emailFrom: string | undefined;
  readonly emailTo: readonly string[];
  readonly webhookUrl: string | undefined;
  readonly webhookSecret: string | undefined;
  readonly rulesFile: string | undefined;
  /** @defaultValue 3600000 (60 minutes) */
  readonly dedupeWindowMs: number;
  /** @defaultValue 5 */
  readonly digestThreshold: number;
  /** @defaultValue 300000 (5 minutes) */
  readonly digestWindowMs: number;
  /** @defaultValue 14400000 (240 minutes) */
  readonly renotifyAfterMs: number;
  /** More refused signatures than this within `signatureFailureWindowMs` raise `signature_failures`. @defaultValue 10 */
  readonly signatureFailureThreshold: number;
  /** @defaultValue 300000 (5 minutes) */
  readonly signatureFailureWindowMs: number;
  /** No webhook for this long while sweeps find items raises `webhooks_silent`. @defaultValue 3600000 (60 minutes) */
  readonly webhookSilenceMs: number;
}

export interface OpsSettings {
  /** Every accepted admin token; empty turns the ops API and dashboard off. */
  readonly adminTokens: readonly string[];
  /** Their own port, or undefined to share the receiver's. */
  readonly port: number | undefined;
}

export interface ExportSettings {
  /** Cron of the daily export, in the books' zone, or `off`. @defaultValue `0 2 * * *` */
  readonly cron: string;
  /** @defaultValue `['csv']` */
  readonly formats: readonly ('csv' | 'jsonl' | 'hledger' | 'beancount')[];
  /** @defaultValue `./data/exports/` */
  readonly dir: string;
}

export interface JanitorSettings {
  /** @defaultValue `* * * * *`; `off` turns the janitor off */
  readonly cron: string;
  /** @defaultValue 5000 */
  readonly batchSize: number;
  /** Gaps between polls in ms, per kind; the last one repeats. @defaultValue 1 m, 5 m, 15 m, 1 h, 6 h, 24 h */
  readonly scheduleMs: {
    readonly payment_intent: readonly number[];
    readonly transfer: readonly number[];
    readonly refund: readonly number[];
  };
  /** Age (from creation) past which a non-terminal item is `stuck`, in ms. */
  readonly stuckAfterMs: {
    /** @defaultValue 48 h */
    readonly payment_intent: number;
    /** @defaultValue 24 h */
    readonly transfer: number;
    /** @defaultValue 72 h */
    readonly refund: number;
    /** A refund in `pending_manual`. @defaultValue 7 days */
    readonly pending_manual: number;
  };
}

export interface PollingSettings {
  /** A cron expression or `off`. @defaultValue `*\/5 * * * *` */
  readonly sweepCron: string;
  /** @defaultValue 600000 */
  readonly sweepOverlapMs: number;
  /** @defaultValue 100 */
  readonly perPage: number;
  /** Payment-refund status requests a sweep may spend on ids it does not know. @defaultValue 50 */
  readonly paymentRefundProbes: number;
  /** @defaultValue 86400000 */
  readonly backfillWindowMs: number;
  /** @defaultValue half of `upstream.rps` (at least 1) */
  readonly backfillRps: number;
  /** @defaultValue 120000 */
  readonly staleRunAfterMs: number;
}

export interface ProcessingSettings {
  /** @defaultValue `paysync` */
  readonly queuePrefix: string;
  /** @defaultValue 8 */
  readonly concurrency: number;
  /** @defaultValue 30000 */
  readonly jobLockMs: number;
  /** @defaultValue 30000 */
  readonly shutdownTimeoutMs: number;
  /** @defaultValue 300000 */
  readonly recoveryAfterMs: number;
  /** A cron expression or `off`. @defaultValue `* * * * *` */
  readonly recoveryCron: string;
  /** Outbox rows handed out this long ago and not consumed go out again. @defaultValue 300000 */
  readonly outboxRedispatchMs: number;
  /** @defaultValue 72 */
  readonly transferSearchHours: number;
}

export type WebhookScheme = ParsedEnv['PAYSYNC_WEBHOOK_SCHEME'];

export interface WebhookSettings {
  /** @defaultValue `/webhooks` */
  readonly path: string;
  /** @defaultValue `standard` */
  readonly scheme: WebhookScheme;
  /** `hmac` scheme only, lower-case. @defaultValue `x-signature` */
  readonly hmacHeader: string;
  /** `hmac` scheme only. @defaultValue `hex` */
  readonly hmacEncoding: 'hex' | 'base64';
  /** `hmac` scheme only, lower-case; when set the signed text is `<timestamp>.<raw body>`. */
  readonly hmacTimestampHeader: string | undefined;
  /** Whether the `none` scheme may run in live. @defaultValue false */
  readonly allowUnsigned: boolean;
  /** @defaultValue 262144 */
  readonly maxBytes: number;
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
  if (value === undefined) return ' is not set';
  if ((SECRET_VARIABLES as readonly string[]).includes(variable)) return ' is invalid';
  let shown = String(value);
  if ((URL_VARIABLES_WITH_PASSWORDS as readonly string[]).includes(variable)) {
    shown = hidePasswordInUrl(shown);
  }
  return `="${shown}" is invalid`;
}

/**
 * Reads a connection URL the way both drivers do: pg-connection-string first percent-encodes a
 * URL holding a space or a stray `%`, then pg and ioredis alike hand it to the WHATWG `URL`
 * parser. So the password is what lies between the first `:` and the LAST `@` of the
 * authority (which ends at the first `/`, `?` or `#`). Undefined when the driver would refuse it.
 */
export function parseConnectionUrl(url: string): URL | undefined {
  let text = url;
  if (/^postgres(ql)?:/i.test(text) && / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(text)) {
    text = encodeURI(text).replace(/%25(\d\d)/g, '%$1');
  }
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** How to write a password the URL parser would otherwise split. */
const ENCODE_PASSWORD_HINT = 'percent-encode @ : / ? # in the password (%40 %3A %2F %3F %23)';

/** A port outside 1 to 65535, read from the text because the parser refuses the whole URL. */
function portProblem(url: string): string | undefined {
  const authority = url.slice(url.indexOf('://') + 3).split(/[/?#]/)[0]!;
  const port = /:(\d+)$/.exec(authority.slice(authority.lastIndexOf('@') + 1))?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) {
    return `has port ${port}: use a port from 1 to 65535`;
  }
  return undefined;
}

/** Why pg could not use this URL, or undefined. Checked at start-up, not at the first query. */
function postgresUrlProblem(url: string): string | undefined {
  const port = portProblem(url);
  if (port) return port;
  const parsed = parseConnectionUrl(url) ?? parseConnectionUrl(url.replace('@/', '@___DUMMY___/'));
  if (!parsed) {
    return `is not a URL the PostgreSQL driver can read: check the port (1 to 65535) and ${ENCODE_PASSWORD_HINT}`;
  }
  if (/[@/]/.test(decodeURI(parsed.pathname.slice(1)))) {
    return `names a database with an @ or / in it, which means a password was split: ${ENCODE_PASSWORD_HINT}`;
  }
  return undefined;
}

/** Why ioredis could not use this URL, or undefined. */
function redisUrlProblem(url: string): string | undefined {
  const port = portProblem(url);
  if (port) return port;
  const parsed = parseConnectionUrl(url);
  if (!parsed) {
    return `is not a URL Redis can be reached at: check the port (1 to 65535) and ${ENCODE_PASSWORD_HINT}`;
  }
  if (parsed.hostname === '')
    return 'has no host: use redis://host:port, for example redis://127.0.0.1:6379';
  const database = parsed.pathname.replace(/^\//, '');
  if (database !== '' && !/^\d{1,5}$/.test(database)) {
    return `selects a database that is not a number (a password split at an unencoded / ?): use redis://host:port/0, or leave the /number out, and ${ENCODE_PASSWORD_HINT}`;
  }
  return undefined;
}

/**
 * One URL with its password replaced by `***`, split where the driver splits it. When the
 * authority the driver sees holds no `@` but the text does further on (a password with an
 * unencoded `/`, `?` or `#`), everything from the first `:` to the last `@` is hidden: showing
 * a little too little beats showing part of a password.
 */
function hidePasswordInOneUrl(url: string): string {
  const start = url.indexOf('://') + 3;
  const authorityEnd = url.slice(start).search(/[/?#]/);
  const authority = authorityEnd === -1 ? url.slice(start) : url.slice(start, start + authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at !== -1) {
    // Another URL may follow without a space between (`…/db,redis://:pw@cache`).
    const rest = url.slice(start + authority.length);
    const tail = rest.includes('://') ? hidePasswordInUrl(rest) : rest;
    const colon = authority.indexOf(':');
    if (colon === -1 || colon > at) return `${url.slice(0, start + authority.length)}${tail}`;
    return `${url.slice(0, start + colon + 1)}***${authority.slice(at)}${tail}`;
  }
  const lastAt = url.lastIndexOf('@');
  const colon = authority.indexOf(':');
  if (lastAt > start + authority.length && colon !== -1) {
    return `${url.slice(0, start + colon + 1)}***${url.slice(lastAt)}`;
  }
  return url;
}

/**
 * `postgres://u:secret@h/db` → `postgres://u:***@h/db`, for every URL in `text`, split the way
 * the drivers split them (see {@link parseConnectionUrl}), so a password holding `@`, `:` or
 * `/` is hidden whole. Leaves other text alone.
 */
export function hidePasswordInUrl(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]+/gi, hidePasswordInOneUrl);
}

/** The decoded passwords of the database and Redis URLs, for the log scrubber. */
function urlPasswords(config: Config): string[] {
  return [config.databaseUrl, config.redisUrl].flatMap((url) => {
    const password = parseConnectionUrl(url)?.password;
    if (!password) return [];
    try {
      return [password, decodeURIComponent(password)];
    } catch {
      return [password];
    }
  });
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
    metricsPort: e.PAYSYNC_METRICS_PORT,
    webhookSecrets: Object.freeze(
      (e.PAYSYNC_WEBHOOK_SECRET ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
    adminToken: e.PAYSYNC_ADMIN_TOKEN,
    ops: Object.freeze({
      adminTokens: Object.freeze(
        (e.PAYSYNC_ADMIN_TOKEN ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      ),
      port: e.PAYSYNC_OPS_PORT,
    }),
    logLevel: e.PAYSYNC_LOG_LEVEL,
    upstream: Object.freeze({
      rps: e.PAYSYNC_UPSTREAM_RPS,
      timeoutMs: e.PAYSYNC_UPSTREAM_TIMEOUT_MS,
      maxRetries: e.PAYSYNC_UPSTREAM_MAX_RETRIES,
      concurrency: e.PAYSYNC_UPSTREAM_CONCURRENCY,
    }),
    webhook: Object.freeze({
      path: e.PAYSYNC_WEBHOOK_PATH,
      scheme: e.PAYSYNC_WEBHOOK_SCHEME,
      hmacHeader: e.PAYSYNC_WEBHOOK_HMAC_HEADER,
      hmacEncoding: e.PAYSYNC_WEBHOOK_HMAC_ENCODING,
      hmacTimestampHeader: e.PAYSYNC_WEBHOOK_HMAC_TIMESTAMP_HEADER,
      allowUnsigned: e.PAYSYNC_ALLOW_UNSIGNED,
      maxBytes: e.PAYSYNC_WEBHOOK_MAX_BYTES,
    }),
    processing: Object.freeze({
      queuePrefix: e.PAYSYNC_QUEUE_PREFIX,
      concurrency: e.PAYSYNC_WORKER_CONCURRENCY,
      jobLockMs: e.PAYSYNC_JOB_LOCK_MS,
      shutdownTimeoutMs: e.PAYSYNC_SHUTDOWN_TIMEOUT_MS,
      recoveryAfterMs: e.PAYSYNC_RECOVERY_AFTER_SECONDS * 1000,
      recoveryCron: e.PAYSYNC_RECOVERY_CRON,
      outboxRedispatchMs: e.PAYSYNC_OUTBOX_REDISPATCH_SECONDS * 1000,
      transferSearchHours: e.PAYSYNC_TRANSFER_SEARCH_HOURS,
    }),
    alerts: alertSettings(e),
    janitor: Object.freeze({
      cron: e.PAYSYNC_JANITOR_CRON,
      batchSize: e.PAYSYNC_JANITOR_BATCH,
      scheduleMs: Object.freeze({
        payment_intent:
          e.PAYSYNC_JANITOR_SCHEDULE_INTENTS ??
          e.PAYSYNC_JANITOR_SCHEDULE ??
          DEFAULT_JANITOR_GAPS_MS,
        transfer:
          e.PAYSYNC_JANITOR_SCHEDULE_TRANSFERS ??
          e.PAYSYNC_JANITOR_SCHEDULE ??
          DEFAULT_JANITOR_GAPS_MS,
        refund:
          e.PAYSYNC_JANITOR_SCHEDULE_REFUNDS ??
          e.PAYSYNC_JANITOR_SCHEDULE ??
          DEFAULT_JANITOR_GAPS_MS,
      }),
      stuckAfterMs: Object.freeze({
        payment_intent: e.PAYSYNC_STUCK_INTENT_AFTER,
        transfer: e.PAYSYNC_STUCK_TRANSFER_AFTER,
        refund: e.PAYSYNC_STUCK_REFUND_AFTER,
        pending_manual: e.PAYSYNC_STUCK_PENDING_MANUAL_AFTER,
      }),
    }),
    balances: Object.freeze({
      timeZone: e.PAYSYNC_BOOKS_TIMEZONE,
      cron: e.PAYSYNC_BALANCE_CRON,
      verdictCron: e.PAYSYNC_VERDICT_CRON,
      lowBalance: Object.freeze(
        (parseLowBalanceThresholds(e.PAYSYNC_LOW_BALANCE) as { thresholds: LowBalanceThreshold[] })
          .thresholds,
      ),
    }),
    receipts: Object.freeze({ dir: e.PAYSYNC_RECEIPTS_DIR }),
    polling: Object.freeze({
      sweepCron: e.PAYSYNC_SWEEP_CRON,
      sweepOverlapMs: e.PAYSYNC_SWEEP_OVERLAP_MINUTES * 60_000,
      perPage: e.PAYSYNC_LIST_PER_PAGE,
      paymentRefundProbes: e.PAYSYNC_PAYMENT_REFUND_PROBES,
      backfillWindowMs: e.PAYSYNC_BACKFILL_WINDOW_HOURS * 3_600_000,
      backfillRps: e.PAYSYNC_BACKFILL_RPS ?? Math.max(1, Math.floor(e.PAYSYNC_UPSTREAM_RPS / 2)),
      staleRunAfterMs: e.PAYSYNC_RUN_STALE_SECONDS * 1000,
    }),
    exports: Object.freeze({
      cron: e.PAYSYNC_EXPORT_CRON,
      formats: Object.freeze(e.PAYSYNC_EXPORT_FORMATS as ExportSettings['formats'][number][]),
      dir: e.PAYSYNC_EXPORT_DIR,
    }),
  };
  return Object.freeze(config);
}

function alertSettings(e: ParsedEnv): AlertSettings {
  const emailTo = (e.PAYSYNC_ALERT_EMAIL_TO ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (e.PAYSYNC_ALERT_SMTP_URL) {
    // The e-mail sink needs all three; say which is missing rather than fail at the first alert.
    if (!e.PAYSYNC_ALERT_EMAIL_FROM) {
      throw new ConfigError(
        'PAYSYNC_ALERT_EMAIL_FROM',
        'PAYSYNC_ALERT_EMAIL_FROM is not set: PAYSYNC_ALERT_SMTP_URL is, so alert e-mails need a sender address',
      );
    }
    if (emailTo.length === 0) {
      throw new ConfigError(
        'PAYSYNC_ALERT_EMAIL_TO',
        'PAYSYNC_ALERT_EMAIL_TO is not set: PAYSYNC_ALERT_SMTP_URL is, so alert e-mails need recipients (comma-separated)',
      );
    }
  }
  if (e.PAYSYNC_ALERT_WEBHOOK_URL && !e.PAYSYNC_ALERT_WEBHOOK_SECRET) {
    throw new ConfigError(
      'PAYSYNC_ALERT_WEBHOOK_SECRET',
      'PAYSYNC_ALERT_WEBHOOK_SECRET is not set: PAYSYNC_ALERT_WEBHOOK_URL is, and alert webhooks are always signed (whsec_<base64>)',
    );
  }
  return Object.freeze({
    slackUrl: e.PAYSYNC_ALERT_SLACK_URL,
    smtpUrl: e.PAYSYNC_ALERT_SMTP_URL,
    emailFrom: e.PAYSYNC_ALERT_EMAIL_FROM,
    emailTo: Object.freeze(emailTo),
    webhookUrl: e.PAYSYNC_ALERT_WEBHOOK_URL,
    webhookSecret: e.PAYSYNC_ALERT_WEBHOOK_SECRET,
    rulesFile: e.PAYSYNC_ALERTS_FILE,
    dedupeWindowMs: e.PAYSYNC_ALERT_DEDUPE_MINUTES * 60_000,
    digestThreshold: e.PAYSYNC_ALERT_DIGEST_THRESHOLD,
    digestWindowMs: e.PAYSYNC_ALERT_DIGEST_MINUTES * 60_000,
    renotifyAfterMs: e.PAYSYNC_ALERT_RENOTIFY_MINUTES * 60_000,
    signatureFailureThreshold: e.PAYSYNC_ALERT_SIGNATURE_FAILURES,
    signatureFailureWindowMs: e.PAYSYNC_ALERT_SIGNATURE_MINUTES * 60_000,
    webhookSilenceMs: e.PAYSYNC_WEBHOOK_SILENCE_MINUTES * 60_000,
  });
}

/** The password inside a URL, decoded, when there is one. */
function urlPassword(url: string | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined;
  const password = new URL(url).password;
  return password === '' ? undefined : decodeURIComponent(password);
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
  const alerts = config.alerts;
  const slackPath = alerts.slackUrl ? new URL(alerts.slackUrl).pathname : undefined;
  return [
    config.apiKey,
    config.adminToken,
    ...config.ops.adminTokens,
    ...config.webhookSecrets,
    alerts.webhookSecret,
    urlPassword(alerts.smtpUrl),
    // The token of an incoming-webhook URL is its path.
    slackPath && slackPath.length > 1 ? slackPath : undefined,
    ...urlPasswords(config),
  ].filter((value): value is string => typeof value === 'string' && value.length >= 4);
}
