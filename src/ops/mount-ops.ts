import type { Kysely } from 'kysely';
import type { AlertRuntime } from '../alerts/index.ts';
import type { Config } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import type { Clock, Component } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import type { Queues } from '../queues/index.ts';
import { createOpsRouter, opsStartupLine } from './create-ops-router.ts';
import { createOpsServer } from './ops-server.ts';
import type { OpsFeatures } from './ops-features.ts';
import type { RequestHandler } from 'express';

export interface OpsMount {
  /** Routes for the receiver's app (when the ops surfaces share its port). */
  readonly receiverRoutes: RequestHandler | undefined;
  /** A server of their own (when `PAYSYNC_OPS_PORT` differs); start after the receiver. */
  readonly components: readonly Component[];
}

/**
 * Decides where the ops surfaces go for a process that runs the receiver (`serve`, `start`),
 * and logs the one start-up line that says whether they are on. Nothing when no admin
 * token is configured.
 */
export function mountOps(options: {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  readonly logger: Logger;
  /** The process's clock (see {@link OpsDependencies}). */
  readonly now: Clock;
  readonly receiverPort: number;
  /** @defaultValue `0.0.0.0` */
  readonly host?: string;
  /** For acking and resolving alerts from the API and the dashboard. */
  readonly alerts?: AlertRuntime;
  readonly features?: OpsFeatures;
}): OpsMount {
  const { config, logger } = options;
  const tokens = config.ops.adminTokens;
  const ownPort =
    tokens.length > 0 && config.ops.port !== undefined && config.ops.port !== options.receiverPort;
  logger.info(
    opsStartupLine(
      tokens,
      ownPort ? `port ${config.ops.port}` : `the receiver port ${options.receiverPort}`,
    ),
  );
  if (tokens.length === 0) return { receiverRoutes: undefined, components: [] };
  const routes = createOpsRouter({
    db: options.db,
    logger,
    now: options.now,
    tokens,
    environment: config.environment,
    timeZone: config.books.timeZone,
    queues: options.queues,
    receiptsDir: config.receipts.dir,
    exportsDir: config.exports.dir,
    relay: config.relay,
    expectations: config.expectations,
    ...(options.alerts ? { alerts: options.alerts } : {}),
    ...(options.features ? { features: options.features } : {}),
  });
  if (!ownPort) return { receiverRoutes: routes, components: [] };
  return {
    receiverRoutes: undefined,
    components: [
      createOpsServer({
        routes,
        port: config.ops.port!,
        logger,
        ...(options.host !== undefined ? { host: options.host } : {}),
      }),
    ],
  };
}
