import { runUntilSignal, type Running } from '../lifecycle/index.ts';
import { createDaemon, type DaemonOptions } from './create-daemon.ts';

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
