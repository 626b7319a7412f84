import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { httpUrl, trueOrFalse, optionalText, positiveInt, type Parsed } from './fields.ts';

// Where alerts go and how often (docs/alerts.md).

/** The Slack incoming-webhook URL carries its token in the path: a secret too. */
export const ALERT_VARIABLES = {
  /** Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat) (secret: the URL holds a token). */
  PAYSYNC_ALERT_SLACK_URL: httpUrl.optional(),
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS) (secret: the password). */
  PAYSYNC_ALERT_SMTP_URL: z
    .string()
    .trim()
    .transform((value) => (value === '' ? undefined : value))
    .optional()
    .refine(
      (value) => value === undefined || (/^smtps?:\/\/[^\s]+$/.test(value) && URL.canParse(value)),
      {
        message: 'must be smtp://user:password@host:port or smtps://user:password@host:port',
      },
    ),
  /**
   * Send the SMTP user name and password over a connection without TLS. Off: a URL with
   * credentials must reach TLS (`smtps://`, or STARTTLS which the server must then offer), else
   * the mail fails before the password is sent (nodemailer `requireTLS`). @defaultValue false
   */
  PAYSYNC_ALERT_SMTP_ALLOW_PLAINTEXT: trueOrFalse('false'),
  /** Sender of alert e-mails, for example `paysync <ops@example.com>`. */
  PAYSYNC_ALERT_EMAIL_FROM: optionalText,
  /** Recipients of alert e-mails, comma-separated. */
  PAYSYNC_ALERT_EMAIL_TO: optionalText,
  /** Generic JSON webhook, signed with Standard Webhooks. */
  PAYSYNC_ALERT_WEBHOOK_URL: httpUrl.optional(),
  /** Standard Webhooks secret for the alert webhook, `whsec_<base64>` (secret). */
  PAYSYNC_ALERT_WEBHOOK_SECRET: z
    .string()
    .trim()
    .transform((value) => (value === '' ? undefined : value))
    .optional()
    .refine((value) => value === undefined || /^(whsec_)?[A-Za-z0-9+/]{16,}={0,2}$/.test(value), {
      message: 'must be a Standard Webhooks secret: whsec_ followed by base64 (at least 12 bytes)',
    }),
  /** Routing rules, YAML or JSON (see docs/alerts.md). Without it: transfer_failed and critical alerts go everywhere. */
  PAYSYNC_ALERTS_FILE: optionalText,
  /** The same dedupe key notifies once within this many minutes. @defaultValue 60 */
  PAYSYNC_ALERT_DEDUPE_MINUTES: positiveInt(60, 7 * 24 * 60),
  /** More than this many alerts of one kind within the digest window become one digest. @defaultValue 5 */
  PAYSYNC_ALERT_DIGEST_THRESHOLD: positiveInt(5, 10_000),
  /** The digest window, in minutes. @defaultValue 5 */
  PAYSYNC_ALERT_DIGEST_MINUTES: positiveInt(5, 24 * 60),
  /** An open alert nobody acknowledged notifies again after this many minutes. @defaultValue 240 */
  PAYSYNC_ALERT_RENOTIFY_MINUTES: positiveInt(240, 7 * 24 * 60),
  /** `signature_failures` fires when more than this many webhook signatures are refused within the window. @defaultValue 10 */
  PAYSYNC_ALERT_SIGNATURE_FAILURES: positiveInt(10, 1_000_000),
  /** The window of `PAYSYNC_ALERT_SIGNATURE_FAILURES`, in minutes. @defaultValue 5 */
  PAYSYNC_ALERT_SIGNATURE_MINUTES: positiveInt(5, 24 * 60),
  /** `webhooks_silent` fires when no webhook arrived for this many minutes while sweeps found items. @defaultValue 60 */
  PAYSYNC_WEBHOOK_SILENCE_MINUTES: positiveInt(60, 7 * 24 * 60),
};

/** Alert sinks and pacing, from `PAYSYNC_ALERT*` (docs/alerts.md). */
export interface AlertSettings {
  readonly slackUrl: string | undefined;
  readonly smtpUrl: string | undefined;
  /** Credentials may go over SMTP without TLS. @defaultValue false */
  readonly smtpAllowPlaintext: boolean;
  readonly emailFrom: string | undefined;
  readonly emailTo: readonly string[];
  readonly webhookUrl: string | undefined;
  readonly webhookSecret: string | undefined;
  readonly rulesFile: string | undefined;
  /** @defaultValue 3600000 (60 minutes) */
  readonly dedupeWindowMs: number;
  /** @defaultValue 5 */
  readonly digestThreshold: number;
  /** @defaultValue 300000 (5 minutes) */
  readonly digestWindowMs: number;
  /** @defaultValue 14400000 (240 minutes) */
  readonly renotifyAfterMs: number;
  /** More refused signatures than this within `signatureFailureWindowMs` raise `signature_failures`. @defaultValue 10 */
  readonly signatureFailureThreshold: number;
  /** @defaultValue 300000 (5 minutes) */
  readonly signatureFailureWindowMs: number;
  /** No webhook for this long while sweeps find items raises `webhooks_silent`. @defaultValue 3600000 (60 minutes) */
  readonly webhookSilenceMs: number;
}

export function alertSettings(e: Parsed<typeof ALERT_VARIABLES>): AlertSettings {
  const emailTo = (e.PAYSYNC_ALERT_EMAIL_TO ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (e.PAYSYNC_ALERT_SMTP_URL) {
    // The e-mail sink needs all three; say which is missing rather than fail at the first alert.
    if (!e.PAYSYNC_ALERT_EMAIL_FROM) {
      throw new ConfigError(
        'PAYSYNC_ALERT_EMAIL_FROM',
        'PAYSYNC_ALERT_EMAIL_FROM is not set: PAYSYNC_ALERT_SMTP_URL is, so alert e-mails need a sender address',
      );
    }
    if (emailTo.length === 0) {
      throw new ConfigError(
        'PAYSYNC_ALERT_EMAIL_TO',
        'PAYSYNC_ALERT_EMAIL_TO is not set: PAYSYNC_ALERT_SMTP_URL is, so alert e-mails need recipients (comma-separated)',
      );
    }
  }
  if (e.PAYSYNC_ALERT_WEBHOOK_URL && !e.PAYSYNC_ALERT_WEBHOOK_SECRET) {
    throw new ConfigError(
      'PAYSYNC_ALERT_WEBHOOK_SECRET',
      'PAYSYNC_ALERT_WEBHOOK_SECRET is not set: PAYSYNC_ALERT_WEBHOOK_URL is, and alert webhooks are always signed (whsec_<base64>)',
    );
  }
  return Object.freeze({
    slackUrl: e.PAYSYNC_ALERT_SLACK_URL,
    smtpUrl: e.PAYSYNC_ALERT_SMTP_URL,
    smtpAllowPlaintext: e.PAYSYNC_ALERT_SMTP_ALLOW_PLAINTEXT,
    emailFrom: e.PAYSYNC_ALERT_EMAIL_FROM,
    emailTo: Object.freeze(emailTo),
    webhookUrl: e.PAYSYNC_ALERT_WEBHOOK_URL,
    webhookSecret: e.PAYSYNC_ALERT_WEBHOOK_SECRET,
    rulesFile: e.PAYSYNC_ALERTS_FILE,
    dedupeWindowMs: e.PAYSYNC_ALERT_DEDUPE_MINUTES * 60_000,
    digestThreshold: e.PAYSYNC_ALERT_DIGEST_THRESHOLD,
    digestWindowMs: e.PAYSYNC_ALERT_DIGEST_MINUTES * 60_000,
    renotifyAfterMs: e.PAYSYNC_ALERT_RENOTIFY_MINUTES * 60_000,
    signatureFailureThreshold: e.PAYSYNC_ALERT_SIGNATURE_FAILURES,
    signatureFailureWindowMs: e.PAYSYNC_ALERT_SIGNATURE_MINUTES * 60_000,
    webhookSilenceMs: e.PAYSYNC_WEBHOOK_SILENCE_MINUTES * 60_000,
  });
}
