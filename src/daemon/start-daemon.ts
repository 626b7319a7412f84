import { stopAll, type Component, type StopFailure } from '../lifecycle/index.ts';
import { createDaemon, type Daemon, type DaemonOptions } from './create-daemon.ts';
import {
  createTenantsDaemon,
  type TenantsDaemon,
  type TenantsDaemonOptions,
} from './create-tenants-daemon.ts';

export interface RunningDaemon extends Daemon {
  /** Stops every component in reverse order (intake first, workers drain, then connections). */
  stop(): Promise<StopFailure[]>;
}

/**
 * Builds and starts the daemon in this process, for tests and `paysync demo`: no signal
 * handlers, the caller stops it. A start failure stops what had started and rethrows. The
 * metrics server of a role without the receiver takes a free port unless `metricsPort` says
 * otherwise, and so does the ops port unless `opsPort` does: many in-process daemons run side by
 * side, `PAYSYNC_METRICS_PORT` and `PAYSYNC_OPS_PORT` are for processes.
 */
export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const daemon = await createDaemon({
    ...options,
    metricsPort: options.metricsPort ?? 0,
    opsPort: options.opsPort ?? 0,
  });
  return { ...daemon, stop: await startInOrder(daemon.components) };
}

export interface RunningTenantsDaemon extends TenantsDaemon {
  /** Stops every component in reverse order: the front first, then each tenant's. */
  stop(): Promise<StopFailure[]>;
}

/** {@link startDaemon} for several tenants in this process (tests). */
export async function startTenantsDaemon(
  options: TenantsDaemonOptions,
): Promise<RunningTenantsDaemon> {
  const daemon = await createTenantsDaemon({
    ...options,
    metricsPort: options.metricsPort ?? 0,
    opsPort: options.opsPort ?? 0,
  });
  return { ...daemon, stop: await startInOrder(daemon.components) };
}

/** Starts each in order; a failure stops what had started and rethrows. Returns the stopper. */
async function startInOrder(
  components: readonly Component[],
): Promise<() => Promise<StopFailure[]>> {
  const started: Component[] = [];
  for (const component of components) {
    try {
      await component.start();
      started.push(component);
    } catch (error) {
      // The connections come first and start without fail, so this closes them too.
      await stopAll(started);
      throw error;
    }
  }
  let stopping: Promise<StopFailure[]> | undefined;
  return () => (stopping ??= stopAll(started));
}
