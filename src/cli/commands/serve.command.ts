import { Command } from 'commander';
import { commandContext } from '../context.ts';
import { runDaemonRoles, TENANTS_HELP } from './daemon-role.action.ts';

/**
 * `paysync serve`: the webhook receiver alone. Refuses to start, in one line, on an unsafe
 * signing set-up, pending migrations, or a Redis that may evict jobs; then runs until
 * SIGTERM/SIGINT, stops intake, lets in-flight requests finish, closes Redis and the
 * database, and exits 0.
 */
export function serveCommand(): Command {
  return new Command('serve')
    .description(
      'run the webhook receiver (POST $PAYSYNC_WEBHOOK_PATH, /healthz, /readyz); metrics and the ops surfaces on $PAYSYNC_OPS_PORT',
    )
    .addHelpText('after', TENANTS_HELP)
    .action(async () => {
      // Several tenants: one port for all of them, POST $PAYSYNC_WEBHOOK_PATH/<tenant>.
      const { tenantsServedTogether } = await import('../tenant-selection.ts');
      if (tenantsServedTogether()) return runDaemonRoles('serve', ['receiver']);
      const { config, logger, now } = await commandContext('serve');
      // Loaded here, not at the top, so `paysync --help` stays fast.
      const { checkReadiness, createSignatureVerifier, createReceiverServer } =
        await import('../../receiver/index.ts');
      const { setHeapGrowth, openCheckedRedis, openMigratedDatabase, StartupError } =
        await import('../../daemon/index.ts');
      setHeapGrowth(logger, config.heapGrowthPercent);
      const { AlertRulesError, createAlertRuntime } = await import('../../alerts/index.ts');
      const { createQueues } = await import('../../queues/index.ts');
      const { runUntilSignal } = await import('../../lifecycle/index.ts');
      const { collectProcessMetrics } = await import('../../metrics/index.ts');
      const { mountOps } = await import('../../ops/index.ts');

      // Signing first: a refused set-up should not need a database to say so.
      const verifier = createSignatureVerifier(config, logger);
      // The ops routes ack and resolve alerts through it; a bad rule file refuses the start.
      let alerts;
      try {
        alerts = createAlertRuntime(config.alerts, logger, {
          now,
          environment: config.environment,
        });
      } catch (error) {
        if (error instanceof AlertRulesError) throw new StartupError(error.message);
        throw error;
      }
      const alertRuntime = alerts;
      const database = await openMigratedDatabase(config).catch(async (error: unknown) => {
        await alertRuntime.close();
        throw error;
      });
      let redis;
      try {
        redis = await openCheckedRedis(config, 'producer', { logger });
      } catch (error) {
        await database.close().catch(() => undefined);
        await alertRuntime.close();
        throw error;
      }
      const queues = createQueues({ connection: redis, prefix: config.processing.queuePrefix });
      const producerRedis = redis;
      const connections = {
        name: 'connections',
        async start() {},
        async stop() {
          await queues.close();
          await producerRedis.quit().catch(() => producerRedis.disconnect());
          await database.close();
          await alertRuntime.close();
        },
      };
      collectProcessMetrics();
      const ops = mountOps({
        config,
        db: database.db,
        queues,
        logger,
        now,
        receiverPort: config.port,
        alerts: alertRuntime,
        readiness: () => checkReadiness({ db: database.db, redis: producerRedis }),
      });
      const receiver = createReceiverServer({
        db: database.db,
        queues,
        redis,
        config,
        logger,
        now,
        syncBatch: {
          batchSize: config.processing.syncBatchSize,
          delayMs: config.processing.syncBatchWaitMs,
        },
        verifier,
        alerts: alertRuntime,
        port: config.port,
        host: config.host,
      });
      await runUntilSignal([connections, ...ops.components, receiver], { logger });
    });
}
