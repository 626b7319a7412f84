import { Command, InvalidArgumentError } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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
      const lines = [
        `paysync sim: payment service simulator listening on ${sim.url}`,
        `  merchant ${merchantId} · seed ${sim.seed} · throttle ${flags.rps ? `${flags.rps} req/s` : 'off'} · control ${sim.url}/__sim`,
        '',
        'Paste into the daemon environment (.env):',
        `PAYSYNC_UPSTREAM_URL=${sim.url}`,
        `PAYSYNC_API_KEY=${given.apiKey ? masked(apiKey) : apiKey}`,
        `PAYSYNC_MERCHANT_ID=${merchantId}`,
        'PAYSYNC_ENVIRONMENT=sandbox',
        `PAYSYNC_WEBHOOK_SECRET=${given.webhookSecret ? masked(webhookSecret) : webhookSecret}`,
        '',
        'Ctrl-C stops it.',
      ];
      say(lines.join('\n'));
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await sim.stop();
      say(`paysync sim: stopped (${signal})`);
    });
}
