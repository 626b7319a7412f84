import type { Logger } from '../logger.ts';

/** Anything long-lived: a server, a worker, a scheduler. */
export interface Component {
  readonly name: string;
  start(): Promise<void>;
  /** Finish in-flight work and release resources. Must be safe to call after a failed start. */
  stop(): Promise<void>;
}

export interface StopFailure {
  readonly name: string;
  readonly error: unknown;
}

/**
 * Stops components in reverse start order. Every step runs even when an earlier one throws,
 * so one stuck piece never leaves a database pool or Redis connection open.
 */
export async function stopAll(components: readonly Component[]): Promise<StopFailure[]> {
  const failures: StopFailure[] = [];
  for (const component of [...components].reverse()) {
    try {
      await component.stop();
    } catch (error) {
      failures.push({ name: component.name, error });
    }
  }
  return failures;
}

export interface RunOptions {
  readonly logger: Logger;
  /** How long shutdown may take before the process exits anyway. @defaultValue 30000 */
  readonly deadlineMs?: number;
  /** @defaultValue ['SIGTERM', 'SIGINT'] */
  readonly signals?: readonly NodeJS.Signals[];
  /** Injected for tests. @defaultValue process.exit */
  readonly exit?: (code: number) => void;
}

export interface Running {
  /** Stops everything as a signal would; resolves with the exit code it chose. */
  shutdown(reason: string): Promise<number>;
}

/**
 * Starts the components in order and stops them on SIGTERM/SIGINT within a deadline.
 * If a start fails, what already started is stopped and the error is rethrown.
 * A second signal during shutdown exits at once.
 */
export async function runUntilSignal(
  components: readonly Component[],
  options: RunOptions,
): Promise<Running> {
  const { logger } = options;
  const deadlineMs = options.deadlineMs ?? 30_000;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit ?? ((code: number) => process.exit(code));

  const started: Component[] = [];
  for (const component of components) {
    try {
      await component.start();
      started.push(component);
      logger.debug({ component: component.name }, 'started');
    } catch (error) {
      // The caller reports the rethrown error, in one line; a second report here, with its
      // stack, at the default level would only bury it (issue 7.D16).
      logger.debug({ component: component.name, err: error }, 'start failed; stopping');
      await stopAll(started);
      throw error;
    }
  }

  let stopping: Promise<number> | undefined;
  const shutdown = (reason: string): Promise<number> => {
    if (stopping) return stopping;
    logger.info({ reason, deadlineMs }, 'shutting down');
    stopping = new Promise<number>((resolveExit) => {
      const timer = setTimeout(() => {
        logger.error({ deadlineMs }, 'shutdown deadline passed; exiting with work unfinished');
        resolveExit(1);
      }, deadlineMs);
      timer.unref();
      void stopAll(started).then((failures) => {
        clearTimeout(timer);
        for (const failure of failures) {
          logger.error({ component: failure.name, err: failure.error }, 'stop failed');
        }
        resolveExit(failures.length === 0 ? 0 : 1);
      });
    });
    return stopping;
  };

  for (const signal of signals) {
    process.on(signal, () => {
      if (stopping) {
        logger.warn({ signal }, 'second signal: exiting now');
        exit(1);
        return;
      }
      void shutdown(signal).then((code) => {
        logger.info({ code }, 'stopped');
        logger.flush?.();
        exit(code);
      });
    });
  }
  return { shutdown };
}
