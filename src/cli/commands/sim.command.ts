import { Command, InvalidArgumentError } from 'commander';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { RunningSimulator } from '../../demo/index.ts';
import { CliError } from '../errors.ts';
import { say } from '../output.ts';

interface SimFlags {
  port: number;
  host: string;
  rps?: number;
  apiKey?: string;
  merchantId?: string;
  webhookSecret?: string;
  seed?: number;
  settledInMemory?: number;
  coldStore?: string;
  history: number;
  traffic?: number;
  expectations?: string;
}

function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
    }
    return parsed;
  };
}

/** Seconds, or `never` (every item stays in memory), as simulator-clock milliseconds. */
function settledInMemoryMs(value: string): number {
  if (value === 'never') return Number.POSITIVE_INFINITY;
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || seconds > 31_536_000) {
    throw new InvalidArgumentError(
      '--settled-in-memory must be a whole number of seconds from 0 to 31536000, or never',
    );
  }
  return seconds * 1000;
}

/** A file path whose folder exists (the file itself is created, or emptied, at start). */
function coldStorePath(value: string): string {
  const folder = dirname(resolve(value));
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new InvalidArgumentError(
      `--cold-store: folder ${folder} does not exist; create it or choose another path`,
    );
  }
  return value;
}

/** Shows the start and end of a secret the user supplied, never the whole of it. */
function masked(secret: string): string {
  return secret.length <= 10 ? '****' : `${secret.slice(0, 6)}…${secret.slice(-4)} (as you set it)`;
}

const DAY_MS = 86_400_000;
/** Seeded items of each kind per day of history. */
const HISTORY_PER_DAY = 24;

/**
 * Settled history for a newcomer's first backfill: for each of the last `days` whole UTC days
 * and today so far (up to a minute ago), transfers and payments, one in ten failing. Seeded
 * items send no webhooks (none is registered yet): `paysync backfill` loads them, as it loads a
 * real merchant's history.
 */
function seedHistory(
  sim: RunningSimulator,
  days: number,
): { from: string; transfers: number; intents: number } {
  const now = Date.now();
  const today = now - (now % DAY_MS);
  const from = today - days * DAY_MS;
  const counts = { transfers: 0, intents: 0 };
  for (let start = from; start < now - 60_000; start += DAY_MS) {
    const window = {
      from: new Date(start).toISOString(),
      to: new Date(Math.min(start + DAY_MS - 1, now - 60_000)).toISOString(),
      settle: true,
      failureRate: 0.1,
    };
    counts.transfers += sim.control.seed({
      kind: 'transfer',
      count: HISTORY_PER_DAY,
      ...window,
    }).count;
    counts.intents += sim.control.seed({
      kind: 'payment_intent',
      count: HISTORY_PER_DAY,
      ...window,
    }).count;
  }
  return { from: new Date(from).toISOString(), ...counts };
}

/** Today's payroll run: the sample of docs/expectations-sample.jsonl, dated today. */
const PAYROLL = [
  { employee: 'E-001', team: 'shop floor', amount: 350_000 },
  { employee: 'E-002', team: 'shop floor', amount: 275_000 },
  { employee: 'E-003', team: 'delivery', amount: 410_000 },
  { employee: 'E-004', team: 'delivery', amount: 182_500 },
  { employee: 'E-005', team: 'office', amount: 95_000 },
] as const;

/**
 * Pays today's payroll (five transfers, created now) and writes the expectations that name
 * them to `file`, in the format of docs/expectations-sample.jsonl, so `paysync expect import`
 * has something that matches the simulator's traffic.
 */
function payroll(sim: RunningSimulator, file: string, now: Date): number {
  const day = now.toISOString().slice(0, 10);
  const lines = PAYROLL.map((pay, index) => {
    const n = String(index + 1).padStart(4, '0');
    const reference = `PAY-${day}-${n}`;
    const number = `+22507000${n}7`;
    sim.control.createTransfer({
      amount: pay.amount,
      reference,
      description: `salary ${pay.employee}`,
      destination: { number, country: 'CI', recipientName: `Employee ${pay.employee}` },
    });
    return JSON.stringify({
      expectation_id: `payroll-${day}-${n}`,
      direction: 'out',
      currency: 'XOF',
      amount: pay.amount,
      window_from: day,
      window_to: day,
      reference,
      item_kinds: ['transfer'],
      metadata: { employee: pay.employee, team: pay.team },
    });
  });
  mkdirSync(dirname(resolve(file)), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${lines.join('\n')}\n`);
  return lines.length;
}

/** The demo's business, against this simulator: refunds go through its API, as a merchant's. */
async function startTraffic(
  sim: RunningSimulator,
  perMinute: number,
  apiKey: string,
  merchantId: string,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  const [{ createDemoTraffic }, { createUpstreamClient }, { systemClock }] = await Promise.all([
    import('../../demo/index.ts'),
    import('../../upstream/index.ts'),
    import('../../lifecycle/index.ts'),
  ]);
  const client = createUpstreamClient({
    baseUrl: sim.url,
    apiKey,
    merchantId,
    environment: 'sandbox',
    rps: 1000,
    maxRetries: 2,
    now: systemClock,
  });
  const traffic = createDemoTraffic({
    sim,
    client,
    logger,
    tickMs: Math.round(60_000 / perMinute),
  });
  traffic.start();
  return traffic;
}

/** What the environment already says, or the daemon's default, for one line of the block. */
function setting(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

interface EnvBlockInput {
  readonly env: NodeJS.ProcessEnv;
  readonly url: string;
  readonly apiKey: string;
  readonly merchantId: string;
  readonly webhookSecret: string;
  readonly adminToken: string;
  /** Which secrets the user supplied (shown masked, never whole). */
  readonly given: { apiKey: boolean; webhookSecret: boolean; adminToken: boolean };
}

/**
 * The daemon's `.env` for this simulator, ready to paste: the service, the database, Redis,
 * both ports, an admin token for the dashboard, the books' day and the export formats, then
 * the one `webhooks register` line for this receiver's local URL. What the environment already
 * sets is kept; a secret the user set is shown masked.
 */
export function simEnvBlock(input: EnvBlockInput): string[] {
  const { env, given } = input;
  const port = setting(env, 'PAYSYNC_PORT', '8080');
  const path = setting(env, 'PAYSYNC_WEBHOOK_PATH', '/webhooks');
  const opsPort = setting(env, 'PAYSYNC_OPS_PORT', '9465');
  return [
    '# paysync .env for this simulator (paste into ./.env; real environment variables win)',
    `PAYSYNC_UPSTREAM_URL=${input.url}`,
    `PAYSYNC_API_KEY=${given.apiKey ? masked(input.apiKey) : input.apiKey}`,
    `PAYSYNC_MERCHANT_ID=${input.merchantId}`,
    'PAYSYNC_ENVIRONMENT=sandbox',
    `PAYSYNC_WEBHOOK_SECRET=${given.webhookSecret ? masked(input.webhookSecret) : input.webhookSecret}`,
    `PAYSYNC_DATABASE_URL=${setting(env, 'PAYSYNC_DATABASE_URL', 'sqlite:./data/paysync.db')}`,
    `PAYSYNC_REDIS_URL=${setting(env, 'PAYSYNC_REDIS_URL', 'redis://127.0.0.1:6379')}`,
    `PAYSYNC_PORT=${port}`,
    `PAYSYNC_OPS_PORT=${opsPort}`,
    `PAYSYNC_ADMIN_TOKEN=${given.adminToken ? masked(input.adminToken) : input.adminToken}`,
    `PAYSYNC_BOOKS_TIMEZONE=${setting(env, 'PAYSYNC_BOOKS_TIMEZONE', 'UTC')}`,
    `PAYSYNC_EXPORT_FORMATS=${setting(env, 'PAYSYNC_EXPORT_FORMATS', 'csv,hledger')}`,
    '',
    'Then register this receiver with the service (once):',
    `  npx paysync webhooks register --url http://127.0.0.1:${port}${path}`,
    `The dashboard: http://127.0.0.1:${opsPort}/ (log in with PAYSYNC_ADMIN_TOKEN)`,
  ];
}

/** `paysync sim`: the sandbox simulator of the payment service, until SIGINT or SIGTERM. */
export function simCommand(): Command {
  return new Command('sim')
    .description('run the sandbox simulator of the payment service (see docs/simulator.md)')
    .option(
      '--port <port>',
      'port to listen on (0 = any free port)',
      integer('--port', 0, 65_535),
      4010,
    )
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option(
      '--rps <n>',
      'throttle: requests per second before 429 (default: none)',
      integer('--rps', 0, 1_000_000),
    )
    .option('--api-key <key>', 'ApiKey to accept (default: $PAYSYNC_API_KEY, else generated)')
    .option(
      '--merchant-id <id>',
      'MerchantId to accept (default: $PAYSYNC_MERCHANT_ID, else generated)',
    )
    .option(
      '--webhook-secret <whsec>',
      'webhook signing secret (default: $PAYSYNC_WEBHOOK_SECRET, else generated)',
    )
    .option(
      '--seed <n>',
      'seed for ids and sandbox dice (default: random)',
      integer('--seed', 0, 2 ** 31 - 1),
    )
    .option(
      '--settled-in-memory <seconds>',
      'settled items unchanged this long (simulator clock) move to the cold store; never = keep all in memory (default: 10)',
      settledInMemoryMs,
    )
    .option(
      '--history <days>',
      'seed settled history: that many whole past days (UTC) and today so far, for backfill to load; 0 = none',
      integer('--history', 0, 31),
      0,
    )
    .option(
      '--traffic <n>',
      'live business: n payments and n transfers a minute (one in five failing), and refunds, with webhooks (default: none)',
      integer('--traffic', 1, 600),
    )
    .option(
      '--expectations <file>',
      "pay today's payroll (5 transfers) and write the expectations naming them to <file>, for paysync expect import",
    )
    .option(
      '--cold-store <file>',
      'SQLite file for items moved out of memory, emptied at start (default: a temporary file, deleted on stop)',
      coldStorePath,
    )
    .action(async (flags: SimFlags) => {
      // Only the variables the simulator uses are read; the daemon's config need not be valid.
      const { readEnvironment } = await import('../../config/index.ts');
      const env = readEnvironment();
      const { startSimulator, generateApiKey, generateMerchantId, generateWebhookSecret } =
        await import('../../sim/index.ts');
      const { createLogger } = await import('../../logger.ts');
      const given = {
        apiKey: flags.apiKey ?? env.PAYSYNC_API_KEY,
        merchantId: flags.merchantId ?? env.PAYSYNC_MERCHANT_ID,
        webhookSecret: flags.webhookSecret ?? env.PAYSYNC_WEBHOOK_SECRET,
      };
      const apiKey = given.apiKey || generateApiKey();
      const merchantId = given.merchantId || generateMerchantId();
      const webhookSecret = given.webhookSecret || generateWebhookSecret();
      const logger = createLogger({
        level: env.PAYSYNC_LOG_LEVEL ?? 'warn',
        secrets: [apiKey, webhookSecret],
        base: { role: 'sim' },
        pretty: false,
      });
      let sim;
      try {
        sim = await startSimulator({
          port: flags.port,
          host: flags.host,
          rps: flags.rps ?? 0,
          apiKey,
          merchantId,
          webhookSecret,
          logger,
          ...(flags.seed === undefined ? {} : { seed: flags.seed }),
          ...(flags.settledInMemory === undefined
            ? {}
            : { settledInMemoryMs: flags.settledInMemory }),
          ...(flags.coldStore === undefined ? {} : { coldStorePath: flags.coldStore }),
        });
      } catch (error) {
        throw new CliError(
          `sim: cannot start on ${flags.host}:${flags.port}: ${(error as Error).message}`,
        );
      }
      const adminToken = env.PAYSYNC_ADMIN_TOKEN || randomBytes(32).toString('hex');
      const history = flags.history > 0 ? seedHistory(sim, flags.history) : undefined;
      const paid = flags.expectations
        ? payroll(sim, flags.expectations, new Date(sim.control.now()))
        : 0;
      const lines = [
        `paysync sim: payment service simulator listening on ${sim.url}`,
        `  merchant ${merchantId} · seed ${sim.seed} · throttle ${flags.rps ? `${flags.rps} req/s` : 'off'} · control ${sim.url}/__sim`,
        ...(history
          ? [
              `  history: ${history.transfers} transfers and ${history.intents} payments from ${history.from} (settled, no webhooks: load them with paysync backfill --from ${history.from.slice(0, 10)} --to now)`,
            ]
          : []),
        ...(flags.expectations
          ? [
              `  payroll: ${paid} transfers paid now; their expectations are in ${flags.expectations} (paysync expect import ${flags.expectations})`,
            ]
          : []),
        ...(flags.traffic
          ? [
              `  traffic: ${flags.traffic} payments and ${flags.traffic} transfers a minute, one in five failing, and refunds`,
            ]
          : []),
        '',
        ...simEnvBlock({
          env: process.env,
          url: sim.url,
          apiKey,
          merchantId,
          webhookSecret,
          adminToken,
          given: {
            apiKey: Boolean(given.apiKey),
            webhookSecret: Boolean(given.webhookSecret),
            adminToken: Boolean(env.PAYSYNC_ADMIN_TOKEN),
          },
        }),
        '',
        'Ctrl-C stops it.',
      ];
      say(lines.join('\n'));
      const traffic = flags.traffic
        ? await startTraffic(sim, flags.traffic, apiKey, merchantId, logger)
        : undefined;
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await traffic?.stop();
      await sim.stop();
      say(`paysync sim: stopped (${signal})`);
    });
}
