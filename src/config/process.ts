import { z } from 'zod';
import { positiveInt, type Parsed } from './fields.ts';

// What every process has: its HTTP port, its metrics port and its log level (docs/metrics.md).

export const PROCESS_VARIABLES = {
  /** Receiver and ops HTTP port. @defaultValue 8080 */
  PAYSYNC_PORT: positiveInt(8080, 65535),
  /**
   * Port of the small `/metrics`, `/healthz`, `/readyz` server of a process without a receiver
   * (`paysync work`, `paysync schedule`); `start` and `serve` answer them on `PAYSYNC_PORT`.
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
};

/** Where `work` and `schedule` serve `/metrics` when `PAYSYNC_METRICS_PORT` is not set. */
export const DEFAULT_METRICS_PORT = 9464;

export type LogLevel = Parsed<typeof PROCESS_VARIABLES>['PAYSYNC_LOG_LEVEL'];
