import type { Redis } from 'ioredis';
import { secretValues, type Config } from '../../config/index.ts';
import type { DatabaseHandle } from '../../db/index.ts';
import { createLogger, type Logger } from '../../logger.ts';
import { cliClock } from '../context.ts';
import type { Queues } from '../../queues/index.ts';
import type { UpstreamClient } from '../../upstream/index.ts';

/** What `sweep` and `backfill` open: the ledger, Redis (shared rate limit, queues), a client. */
export interface PollingSession {
  readonly handle: DatabaseHandle;
  readonly redis: Redis;
  readonly queues: Queues;
  readonly upstream: UpstreamClient;
  readonly logger: Logger;
  close(): Promise<void>;
}

/**
 * Opens everything a foreground sweep or backfill needs. The client shares the deployment's
 * upstream budget through Redis (`PAYSYNC_UPSTREAM_RPS`), with the daemon's patient retries:
 * a 429 storm is waited out rather than ending the command at once.
 */
export async function openPollingSession(config: Config, what: string): Promise<PollingSession> {
  const { clientOptionsFromConfig, createUpstreamClient } = await import('../../upstream/index.ts');
  const { openLedgerDatabase } = await import('../open-ledger-database.ts');
  const { openCheckedRedis } = await import('../../daemon/index.ts');
  const { createQueues } = await import('../../queues/index.ts');
  // Log lines go to stderr, errors only unless asked: the command's own lines say the rest.
  const logger = createLogger({
    level: config.logLevel === 'info' ? 'error' : config.logLevel,
    secrets: secretValues(config),
    base: { role: what },
    pretty: false,
    destination: process.stderr,
  });
  const clientOptions = clientOptionsFromConfig(config, cliClock);
  const handle = await openLedgerDatabase(config, what);
  let redis: Redis;
  try {
    redis = await openCheckedRedis(config, 'worker', { logger });
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  const queues = createQueues({ connection: redis, prefix: config.processing.queuePrefix });
  const upstream = createUpstreamClient({ ...clientOptions, redis, logger });
  return {
    handle,
    redis,
    queues,
    upstream,
    logger,
    async close() {
      await queues.close().catch(() => undefined);
      await redis.quit().catch(() => redis.disconnect());
      await handle.close().catch(() => undefined);
    },
  };
}
