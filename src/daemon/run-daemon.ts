import { runUntilSignal, type Running } from '../lifecycle/index.ts';
import { createDaemon, type DaemonOptions } from './create-daemon.ts';
import { createTenantsDaemon, type TenantsDaemonOptions } from './create-tenants-daemon.ts';
import { applyHeapGrowth } from './heap-growth.ts';

/**
 * Runs the daemon as a process role (`start`, `work`, `schedule`): starts the components and
 * stops them on SIGTERM/SIGINT, draining in-flight jobs within
 * `PAYSYNC_SHUTDOWN_TIMEOUT_MS`, then exits (0 when everything stopped cleanly).
 */
export async function runDaemon(options: DaemonOptions): Promise<Running> {
  setHeapGrowth(options.logger, options.config.heapGrowthPercent);
  const daemon = await createDaemon(options);
  return runUntilSignal(daemon.components, {
    logger: options.logger,
    deadlineMs: options.config.processing.shutdownTimeoutMs,
  });
}

/**
 * {@link runDaemon} for a process serving every tenant of the tenants file. Process-wide
 * settings (the shutdown deadline, the heap growth) are the first tenant's.
 */
export async function runTenantsDaemon(options: TenantsDaemonOptions): Promise<Running> {
  setHeapGrowth(options.logger, options.tenants[0]!.config.heapGrowthPercent);
  const daemon = await createTenantsDaemon(options);
  return runUntilSignal(daemon.components, {
    logger: options.logger,
    deadlineMs: options.tenants[0]!.config.processing.shutdownTimeoutMs,
  });
}

/** Sets this long-running process's heap growth and says which is in force (debug level). */
export function setHeapGrowth(logger: DaemonOptions['logger'], percent: number): void {
  const growth = applyHeapGrowth(percent);
  logger.debug({ heapGrowthPercent: growth.percent ?? 'V8', from: growth.from }, 'heap growth');
}
