import { z } from 'zod';
import { bindAddress, nonNegativeInt, positiveInt, type Parsed } from './fields.ts';

// What every process has: its HTTP port, its metrics port and its log level (docs/metrics.md).

export const PROCESS_VARIABLES = {
  /** The receiver's port: webhooks and health only (the ops surfaces: `PAYSYNC_OPS_PORT`). @defaultValue 8080 */
  PAYSYNC_PORT: positiveInt(8080, 65535),
  /**
   * Interface the receiver's port binds to. All of them, as before, since the payment service
   * must reach it (usually through a reverse proxy). @defaultValue `0.0.0.0`
   */
  PAYSYNC_HOST: bindAddress('0.0.0.0'),
  /**
   * Port of the small `/metrics`, `/healthz`, `/readyz` server of a process without a receiver
   * (`paysync work`, `paysync schedule`), bound to `PAYSYNC_OPS_HOST`; `start` and `serve` answer
   * them on `PAYSYNC_OPS_PORT`.
   * 0 picks a free port (logged). Set, a taken port refuses the start; unset, the default port
   * taken (a second process on the host) is a warning and the process runs without it.
   * @defaultValue {@link DEFAULT_METRICS_PORT}
   */
  PAYSYNC_METRICS_PORT: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(65535, 'must be at most 65535')
    .optional(),
  /** pino level. @defaultValue `info` */
  PAYSYNC_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of: fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  /**
   * How far V8 lets the JavaScript heap grow past what its last full garbage collection kept,
   * in percent, in the long-running roles (`start`, `serve`, `work`, `schedule`). Left to
   * itself V8 lets a busy process's heap grow up to four times, and its RSS saws by 100 MB
   * between collections; 50 holds it within a few percent for about 5 % more CPU
   * (docs/performance.md, "Flat in time"). 0 leaves the sizing to V8; a
   * `--heap-growing-percent` given to node wins over this.
   * @defaultValue 50
   */
  PAYSYNC_HEAP_GROWTH_PERCENT: nonNegativeInt(50, 400),
};

/** Where `work` and `schedule` serve `/metrics` when `PAYSYNC_METRICS_PORT` is not set. */
export const DEFAULT_METRICS_PORT = 9464;

export type LogLevel = Parsed<typeof PROCESS_VARIABLES>['PAYSYNC_LOG_LEVEL'];
