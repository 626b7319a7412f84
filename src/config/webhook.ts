import { z } from 'zod';
import { headerName, optionalText, positiveInt, type Parsed } from './fields.ts';

// How the receiver takes webhooks (docs/receiver.md).

export const WEBHOOK_VARIABLES = {
  /** Webhook signing secret(s), comma-separated for rotation (secret). */
  PAYSYNC_WEBHOOK_SECRET: optionalText,
  /** Path the receiver takes webhooks on. @defaultValue `/webhooks` */
  PAYSYNC_WEBHOOK_PATH: z
    .string()
    .trim()
    .default('/webhooks')
    .refine((value) => /^\/[\w.~/-]*$/.test(value), {
      message: 'must be a path starting with /, for example /webhooks',
    }),
  /** How incoming webhooks are signed: `standard` (Standard Webhooks), `hmac` or `none`. @defaultValue `standard` */
  PAYSYNC_WEBHOOK_SCHEME: z
    .enum(['standard', 'hmac', 'none'], { error: 'must be one of: standard, hmac, none' })
    .default('standard'),
  /** `hmac` scheme: the header carrying the signature. @defaultValue `x-signature` */
  PAYSYNC_WEBHOOK_HMAC_HEADER: headerName.default('x-signature'),
  /** `hmac` scheme: how the signature is encoded. @defaultValue `hex` */
  PAYSYNC_WEBHOOK_HMAC_ENCODING: z
    .enum(['hex', 'base64'], { error: 'must be one of: hex, base64' })
    .default('hex'),
  /** `hmac` scheme: a header with the Unix-seconds send time, signed as `<timestamp>.<body>`. */
  PAYSYNC_WEBHOOK_HMAC_TIMESTAMP_HEADER: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    headerName.optional(),
  ),
  /** Lets the `none` scheme run when `PAYSYNC_ENVIRONMENT=live`. @defaultValue false */
  PAYSYNC_ALLOW_UNSIGNED: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((value) => value === 'true'),
  /** Largest webhook body accepted, in bytes; larger ones get 413. @defaultValue 262144 (256 KB) */
  PAYSYNC_WEBHOOK_MAX_BYTES: positiveInt(256 * 1024, 16 * 1024 * 1024),
};

export type WebhookScheme = Parsed<typeof WEBHOOK_VARIABLES>['PAYSYNC_WEBHOOK_SCHEME'];

export interface WebhookSettings {
  /** @defaultValue `/webhooks` */
  readonly path: string;
  /** @defaultValue `standard` */
  readonly scheme: WebhookScheme;
  /** `hmac` scheme only, lower-case. @defaultValue `x-signature` */
  readonly hmacHeader: string;
  /** `hmac` scheme only. @defaultValue `hex` */
  readonly hmacEncoding: 'hex' | 'base64';
  /** `hmac` scheme only, lower-case; when set the signed text is `<timestamp>.<raw body>`. */
  readonly hmacTimestampHeader: string | undefined;
  /** Whether the `none` scheme may run in live. @defaultValue false */
  readonly allowUnsigned: boolean;
  /** @defaultValue 262144 */
  readonly maxBytes: number;
}

export function webhookSettings(e: Parsed<typeof WEBHOOK_VARIABLES>): WebhookSettings {
  return Object.freeze({
    path: e.PAYSYNC_WEBHOOK_PATH,
    scheme: e.PAYSYNC_WEBHOOK_SCHEME,
    hmacHeader: e.PAYSYNC_WEBHOOK_HMAC_HEADER,
    hmacEncoding: e.PAYSYNC_WEBHOOK_HMAC_ENCODING,
    hmacTimestampHeader: e.PAYSYNC_WEBHOOK_HMAC_TIMESTAMP_HEADER,
    allowUnsigned: e.PAYSYNC_ALLOW_UNSIGNED,
    maxBytes: e.PAYSYNC_WEBHOOK_MAX_BYTES,
  });
}

/** Every accepted signing secret; the first one signs, all of them verify. */
export function webhookSecrets(e: Parsed<typeof WEBHOOK_VARIABLES>): readonly string[] {
  return Object.freeze(
    (e.PAYSYNC_WEBHOOK_SECRET ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
}
