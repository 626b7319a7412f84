import { runUntilSignal, type Running } from '../lifecycle/index.ts';
import { createDaemon, type DaemonOptions } from './create-daemon.ts';
import { createTenantsDaemon, type TenantsDaemonOptions } from './create-tenants-daemon.ts';

/**
 * Runs the daemon as a process role (`start`, `work`, `schedule`): starts the components and
 * stops them on SIGTERM/SIGINT, draining in-flight jobs within
 * `PAYSYNC_SHUTDOWN_TIMEOUT_MS`, then exits (0 when everything stopped cleanly).
 */
export async function runDaemon(options: DaemonOptions): Promise<Running> {
  const daemon = await createDaemon(options);
  return runUntilSignal(daemon.components, {
    logger: options.logger,
    deadlineMs: options.config.processing.shutdownTimeoutMs,
  });
}

/** {@link runDaemon} for a process serving every tenant of the tenants file. */
export async function runTenantsDaemon(options: TenantsDaemonOptions): Promise<Running> {
  const daemon = await createTenantsDaemon(options);
  return runUntilSignal(daemon.components, {
    logger: options.logger,
    deadlineMs: options.tenants[0]!.config.processing.shutdownTimeoutMs,
  });
}
