import { runUntilSignal, StartupError, type Component, type Running } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import { startTracing, TracingSettingsError } from '../tracing/index.ts';
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
  const tracing = await tracingComponent(options.logger);
  const daemon = await createDaemon(options);
  return runUntilSignal([...tracing, ...daemon.components], {
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
  const tracing = await tracingComponent(options.logger);
  const daemon = await createTenantsDaemon(options);
  return runUntilSignal([...tracing, ...daemon.components], {
    logger: options.logger,
    deadlineMs: options.tenants[0]!.config.processing.shutdownTimeoutMs,
  });
}

/** Sets this long-running process's heap growth and says which is in force (debug level). */
export function setHeapGrowth(logger: DaemonOptions['logger'], percent: number): void {
  const growth = applyHeapGrowth(percent);
  logger.debug({ heapGrowthPercent: growth.percent ?? 'V8', from: growth.from }, 'heap growth');
}

/**
 * Traces, when the `OTEL_*` variables ask for them (docs/observability.md): the SDK starts
 * before the components and, first in the list, is stopped last, so the spans of the last jobs
 * are sent. No component at all when tracing is off.
 */
async function tracingComponent(logger: Logger): Promise<Component[]> {
  let tracing;
  try {
    tracing = await startTracing(process.env, logger);
  } catch (error) {
    if (error instanceof TracingSettingsError) throw new StartupError(error.message);
    throw error;
  }
  if (!tracing) return [];
  logger.info('traces sent by OTLP (OTEL_EXPORTER_OTLP_ENDPOINT)');
  return [{ name: 'tracing', start: async () => undefined, stop: () => tracing.shutdown() }];
}
