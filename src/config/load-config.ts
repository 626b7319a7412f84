import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type * as Dotenv from 'dotenv';
import { z } from 'zod';
import { ALERT_VARIABLES, alertSettings, type AlertSettings } from './alerts.ts';
import { BALANCE_VARIABLES, balanceSettings, type BalanceSettings } from './balances.ts';
import { BOOKS_VARIABLES, booksSettings, type BooksSettings } from './books.ts';
import { ConfigError } from './config-error.ts';
import {
  CONNECTION_VARIABLES,
  hidePasswordInUrl,
  URL_VARIABLES_WITH_PASSWORDS,
  type RedisEvictionCheck,
} from './connections.ts';
import {
  EXPECTATION_VARIABLES,
  expectationSettings,
  type ExpectationSettings,
} from './expectations.ts';
import { EXPORT_VARIABLES, exportSettings, type ExportSettings } from './exports.ts';
import { JANITOR_VARIABLES, janitorSettings, type JanitorSettings } from './janitor.ts';
import { OPS_VARIABLES, opsSettings, weakLiveToken, type OpsSettings } from './ops.ts';
import { POLLING_VARIABLES, pollingSettings, type PollingSettings } from './polling.ts';
import { PROCESS_VARIABLES, type LogLevel } from './process.ts';
import { PROCESSING_VARIABLES, processingSettings, type ProcessingSettings } from './processing.ts';
import { RECEIPT_VARIABLES, receiptSettings, type ReceiptSettings } from './receipts.ts';
import { RELAY_VARIABLES, relaySettings, type RelaySettings } from './relay.ts';
import { RECEIVER_VARIABLES, receiverSettings, type ReceiverSettings } from './receiver.ts';
import { RETENTION_VARIABLES, retentionSettings, type RetentionSettings } from './retention.ts';
import { SECRET_VARIABLES } from './secret-variables.ts';
import {
  SERVICE_VARIABLES,
  UPSTREAM_VARIABLES,
  upstreamSettings,
  type Environment,
  type UpstreamSettings,
} from './service.ts';
import {
  WEBHOOK_VARIABLES,
  webhookSecrets,
  webhookSettings,
  type WebhookSettings,
} from './webhook.ts';

const { PAYSYNC_WEBHOOK_SECRET, ...WEBHOOK_RECEIVING } = WEBHOOK_VARIABLES;
const { PAYSYNC_ADMIN_TOKEN, ...OPS_SURFACE } = OPS_VARIABLES;
const {
  PAYSYNC_PORT,
  PAYSYNC_HOST,
  PAYSYNC_METRICS_PORT,
  PAYSYNC_LOG_LEVEL,
  PAYSYNC_HEAP_GROWTH_PERCENT,
} = PROCESS_VARIABLES;
const { PAYSYNC_LOW_BALANCE, ...BALANCE_SCHEDULES } = BALANCE_VARIABLES;

/**
 * Every variable paysync reads, gathered from each component's file, where its default is
 * declared. Secrets have no defaults. The order is the order they are checked in, so the
 * first bad variable named stays the same: keep it.
 */
const schema = z.object({
  ...SERVICE_VARIABLES,
  ...CONNECTION_VARIABLES,
  PAYSYNC_PORT,
  PAYSYNC_HOST,
  PAYSYNC_METRICS_PORT,
  PAYSYNC_WEBHOOK_SECRET,
  PAYSYNC_ADMIN_TOKEN,
  ...OPS_SURFACE,
  PAYSYNC_LOG_LEVEL,
  PAYSYNC_HEAP_GROWTH_PERCENT,
  ...UPSTREAM_VARIABLES,
  ...WEBHOOK_RECEIVING,
  ...RECEIVER_VARIABLES,
  ...PROCESSING_VARIABLES,
  ...ALERT_VARIABLES,
  ...JANITOR_VARIABLES,
  ...BOOKS_VARIABLES,
  ...BALANCE_SCHEDULES,
  ...EXPORT_VARIABLES,
  PAYSYNC_LOW_BALANCE,
  ...RECEIPT_VARIABLES,
  ...POLLING_VARIABLES,
  ...RETENTION_VARIABLES,
  ...RELAY_VARIABLES,
  ...EXPECTATION_VARIABLES,
});

/** The name of every `PAYSYNC_*` variable the config reads, in the order they are checked. */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(schema.shape));

export interface Config {
  readonly upstreamUrl: string | undefined;
  readonly apiKey: string | undefined;
  readonly merchantId: string | undefined;
  readonly environment: Environment;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** When Redis refuses CONFIG: refuse to start, or start with a warning (docs/operations.md). */
  readonly redisEvictionCheck: RedisEvictionCheck;
  readonly port: number;
  /** The receiver's interface (`PAYSYNC_HOST`). */
  readonly host: string;
  /**
   * Metrics and health port of a process without a receiver (see docs/metrics.md); undefined
   * when `PAYSYNC_METRICS_PORT` is not set ({@link DEFAULT_METRICS_PORT}, best effort).
   */
  readonly metricsPort: number | undefined;
  /** Every accepted signing secret; the first one signs, all of them verify. */
  readonly webhookSecrets: readonly string[];
  readonly adminToken: string | undefined;
  /** The ops port: metrics, the ops API and the dashboard (see docs/ops.md, docs/security.md). */
  readonly ops: OpsSettings;
  readonly logLevel: LogLevel;
  /** V8's heap growth past a full collection, in percent, in the daemon roles; 0 = V8's own. */
  readonly heapGrowthPercent: number;
  readonly upstream: UpstreamSettings;
  /** How the receiver takes webhooks (see docs/receiver.md). */
  readonly webhook: WebhookSettings;
  /** How much the receiver takes on before it answers 503 (see docs/receiver.md). */
  readonly receiver: ReceiverSettings;
  /** How workers and the scheduler process events (see docs/processing.md). */
  readonly processing: ProcessingSettings;
  /** Where alerts go and how often (see docs/alerts.md). */
  readonly alerts: AlertSettings;
  /** Re-polling of non-terminal items and stuck detection (see docs/processing.md). */
  readonly janitor: JanitorSettings;
  /** The books' time zone, which closes their days (see docs/balances.md). */
  readonly books: BooksSettings;
  /** Snapshots, low-balance thresholds and the verdict task (see docs/balances.md). */
  readonly balances: BalanceSettings;
  /** Receipt archive (see docs/receipts.md). */
  readonly receipts: ReceiptSettings;
  /** Sweeps, backfills and scheduled-run records (see docs/processing.md). */
  readonly polling: PollingSettings;
  /** Scheduled exports and closed periods' files (see docs/exports.md). */
  readonly exports: ExportSettings;
  /** How long the tables that grow with traffic keep their rows (see docs/retention.md). */
  readonly retention: RetentionSettings;
  /** Delivery of reconciled events to the merchant's endpoints (see docs/relay.md). */
  readonly relay: RelaySettings;
  /** Matching of expected payments and payouts (see docs/expectations.md). */
  readonly expectations: ExpectationSettings;
}

export type EnvSource = Readonly<Record<string, string | undefined>>;

/**
 * The environment as paysync sees it: a `.env` file in `cwd`, if any, under the real
 * environment (real variables win). The CLI reads it once a command runs, unless the command
 * works on a tenant of the tenants file, whose environment it then passes to {@link loadConfig}.
 */
export function readEnvironment(
  processEnv: EnvSource = process.env,
  cwd: string = process.cwd(),
): EnvSource {
  const file = resolve(cwd, '.env');
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  return { ...fromFile, ...processEnv };
}

/** dotenv's parser, loaded only when there is a `.env` file to parse (issue 39). */
function parseDotenv(content: Buffer): Record<string, string> {
  const dotenv = createRequire(import.meta.url)('dotenv') as typeof Dotenv;
  return dotenv.parse(content);
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
 * Parse and validate `env` (the caller's choice: {@link readEnvironment}, or a tenant's) once;
 * the result is frozen. Throws {@link ConfigError} naming the variable.
 */
export function loadConfig(env: EnvSource): Config {
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
  const ops = opsSettings(e);
  const weak = weakLiveToken(e.PAYSYNC_ENVIRONMENT, {
    PAYSYNC_ADMIN_TOKEN: ops.adminTokens,
    PAYSYNC_METRICS_TOKEN: ops.metricsTokens,
  });
  if (weak) throw new ConfigError(weak.variable, weak.message);
  if (ops.port !== 0 && ops.port === e.PAYSYNC_PORT) {
    throw new ConfigError(
      'PAYSYNC_OPS_PORT',
      `PAYSYNC_OPS_PORT="${ops.port}" is invalid: must differ from PAYSYNC_PORT (metrics, the ops API and the dashboard no longer share the receiver's port; see docs/security.md)`,
    );
  }
  const config: Config = {
    upstreamUrl: e.PAYSYNC_UPSTREAM_URL,
    apiKey: e.PAYSYNC_API_KEY,
    merchantId: e.PAYSYNC_MERCHANT_ID,
    environment: e.PAYSYNC_ENVIRONMENT,
    databaseUrl: e.PAYSYNC_DATABASE_URL,
    redisUrl: e.PAYSYNC_REDIS_URL,
    redisEvictionCheck: e.PAYSYNC_REDIS_EVICTION_CHECK,
    port: e.PAYSYNC_PORT,
    host: e.PAYSYNC_HOST,
    metricsPort: e.PAYSYNC_METRICS_PORT,
    webhookSecrets: webhookSecrets(e),
    adminToken: e.PAYSYNC_ADMIN_TOKEN,
    ops,
    logLevel: e.PAYSYNC_LOG_LEVEL,
    heapGrowthPercent: e.PAYSYNC_HEAP_GROWTH_PERCENT,
    upstream: upstreamSettings(e),
    webhook: webhookSettings(e),
    receiver: receiverSettings(e),
    processing: processingSettings(e),
    alerts: alertSettings(e),
    janitor: janitorSettings(e),
    books: booksSettings(e),
    balances: balanceSettings(e),
    receipts: receiptSettings(e),
    polling: pollingSettings(e, e.PAYSYNC_UPSTREAM_RPS),
    exports: exportSettings(e),
    retention: retentionSettings(e),
    relay: relaySettings(e),
    expectations: expectationSettings(e),
  };
  return Object.freeze(config);
}
