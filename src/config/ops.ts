import { z } from 'zod';
import { optionalText, type Parsed } from './fields.ts';

// The ops API and dashboard (docs/ops.md).

export const OPS_VARIABLES = {
  /**
   * Bearer token(s) for the ops API and dashboard, comma-separated for rotation (secret).
   * Unset: the ops API and dashboard are off (their routes answer 404).
   */
  PAYSYNC_ADMIN_TOKEN: optionalText,
  /** Port of the ops API and dashboard. @defaultValue the receiver's port (`PAYSYNC_PORT`) */
  PAYSYNC_OPS_PORT: z
    .string()
    .trim()
    .transform((value) => (value === '' ? undefined : value))
    .optional()
    .pipe(
      z.coerce
        .number<string | undefined>({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .max(65535, 'must be at most 65535')
        .optional(),
    ),
};

export interface OpsSettings {
  /** Every accepted admin token; empty turns the ops API and dashboard off. */
  readonly adminTokens: readonly string[];
  /** Their own port, or undefined to share the receiver's. */
  readonly port: number | undefined;
}

export function opsSettings(e: Parsed<typeof OPS_VARIABLES>): OpsSettings {
  return Object.freeze({
    adminTokens: Object.freeze(
      (e.PAYSYNC_ADMIN_TOKEN ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
    port: e.PAYSYNC_OPS_PORT,
  });
}
