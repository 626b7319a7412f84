import { pino } from 'pino';
import { insertInboxEvent, recordInboxResource } from '../../../src/inbox/index.ts';
import { createQueues, createRedisConnection, type Queues } from '../../../src/queues/index.ts';
import type { ResourceKind } from '../../../src/resources/index.ts';
import { CredentialGuard, type SyncDependencies } from '../../../src/reconcile/index.ts';
import {
  startSimulator,
  type RunningSimulator,
  type SimulatorOptions,
} from '../../../src/sim/index.ts';
import { createUpstreamClient } from '../../../src/upstream/index.ts';
import { freshDatabase, type TestDatabase } from '../../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../support/test-redis.ts';

export interface SyncContext {
  readonly database: TestDatabase;
  readonly sim: RunningSimulator;
  readonly queues: Queues;
  readonly deps: SyncDependencies;
  /** Stores an event about a resource as the receiver and the ingest job would. */
  inboxEvent(
    resource: { kind: ResourceKind; id?: string; reference?: string },
    body?: unknown,
  ): Promise<number>;
  cleanup(): Promise<void>;
}

/** The pieces a sync needs, real ones: database, queues on Redis, the simulator, a client. */
export async function createSyncContext(
  options: { sim?: SimulatorOptions; overrides?: Partial<SyncDependencies> } = {},
): Promise<SyncContext> {
  const database = await freshDatabase();
  const sim = await startSimulator({
    freezeClock: true,
    startAt: new Date(Date.now() - 3_600_000),
    ...options.sim,
  });
  const prefix = uniqueRedisPrefix('sync');
  const redis = createRedisConnection(TEST_REDIS_URL, 'worker');
  const queues = createQueues({ connection: redis, prefix });
  await queues.waitUntilReady();
  const logger = pino({ level: 'silent' });
  const upstream = createUpstreamClient({
    now: () => new Date(),
    baseUrl: sim.url,
    ...sim.credentials,
    rps: 1000,
    maxRetries: 0,
  });
  const deps: SyncDependencies = {
    db: database.db,
    queues,
    upstream,
    logger,
    credentials: new CredentialGuard(database.db, queues, logger),
    transferSearchHours: 2,
    environment: 'sandbox',
    now: () => new Date(),
    ...options.overrides,
  };
  let counter = 0;
  return {
    database,
    sim,
    queues,
    deps,
    async inboxEvent(resource, body) {
      counter += 1;
      const raw = body ?? {
        id: `evt_test_${counter}`,
        type: `${resource.kind}.updated`,
        data: { object: { id: resource.id } },
      };
      const { inboxId } = await insertInboxEvent(database.db, {
        receivedAt: new Date(),
        dedupeKey: `test-${counter}-${Math.random()}`,
        eventId: undefined,
        eventType: undefined,
        rawBody: Buffer.from(JSON.stringify(raw)),
        headers: {},
      });
      await recordInboxResource(database.db, inboxId, resource);
      return inboxId;
    },
    async cleanup() {
      await queues.close();
      await redis.quit().catch(() => redis.disconnect());
      await sim.stop();
      await database.cleanup();
      await deleteRedisPrefix(prefix);
    },
  };
}
