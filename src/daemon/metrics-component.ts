import type { Logger } from 'pino';
import { DEFAULT_METRICS_PORT } from '../config/index.ts';
import { StartupError, startupErrorFrom, type Component } from '../lifecycle/index.ts';
import {
  createMetricsServer,
  type MetricsServer,
  type ProcessReadiness,
} from '../metrics/index.ts';

/**
 * The `/metrics`, `/healthz`, `/readyz` server of a process without the receiver role (`work`,
 * `schedule`), as a component. `start` and `serve` answer these on their ops port.
 * A port set by the caller or PAYSYNC_METRICS_PORT that is taken refuses the start; the default
 * port taken (a second worker on the host) only costs this process its metrics.
 */
export function metricsServerComponent(options: {
  /** The caller's or PAYSYNC_METRICS_PORT; undefined: the default, best effort. */
  readonly port: number | undefined;
  readonly host?: string;
  readonly role: 'work' | 'schedule';
  readonly logger: Logger;
  readonly readiness: () => Promise<ProcessReadiness>;
  /** See MetricsServerOptions.bearerTokens: set when the port is bound beyond loopback. */
  readonly bearerTokens?: readonly string[] | undefined;
  /** `PAYSYNC_CONNECTIONS_PER_CLIENT`, as on every port. */
  readonly connectionsPerClient: number;
}): { server: MetricsServer; component: Component } {
  const { logger } = options;
  const server = createMetricsServer({
    port: options.port ?? DEFAULT_METRICS_PORT,
    ...(options.host !== undefined ? { host: options.host } : {}),
    role: options.role,
    logger,
    readiness: options.readiness,
    ...(options.bearerTokens ? { bearerTokens: options.bearerTokens } : {}),
    connectionsPerClient: options.connectionsPerClient,
  });
  const component: Component = {
    name: server.name,
    async start() {
      try {
        await server.start();
      } catch (error) {
        const refusal = startupErrorFrom(error);
        if (!refusal) throw error;
        if (options.port === undefined) {
          logger.warn(
            { port: DEFAULT_METRICS_PORT, reason: refusal.message },
            `metrics: port ${DEFAULT_METRICS_PORT} cannot be used; running without /metrics, /healthz, /readyz → set PAYSYNC_METRICS_PORT to a free port`,
          );
          return;
        }
        // The generic refusal names PAYSYNC_PORT; this server's port is another variable.
        throw new StartupError(
          refusal.message.replace('PAYSYNC_PORT', 'PAYSYNC_METRICS_PORT (0 = any free port)'),
        );
      }
    },
    stop: () => server.stop(),
  };
  return { server, component };
}
