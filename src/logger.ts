import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { hidePasswordInUrl } from './config/index.ts';

export type { Logger } from 'pino';

/**
 * Paths pino blanks out wherever they appear in a log object. Header names are matched in
 * every spelling the service, Express and our client use.
 */
export const REDACTED_PATHS: readonly string[] = [
  ...['ApiKey', 'apikey', 'apiKey', 'api_key', 'authorization', 'Authorization', 'cookie'].flatMap(
    (h) => [`headers.${h}`, `*.headers.${h}`, `req.headers.${h}`, `request.headers.${h}`],
  ),
  'apiKey',
  '*.apiKey',
  'webhookSecret',
  '*.webhookSecret',
  'webhookSecrets',
  '*.webhookSecrets',
  'secret',
  '*.secret',
  'adminToken',
  '*.adminToken',
  'password',
  '*.password',
  'PAYSYNC_API_KEY',
  'PAYSYNC_WEBHOOK_SECRET',
  'PAYSYNC_ADMIN_TOKEN',
];

export const REDACTION = '[REDACTED]';

export interface LoggerSettings {
  /** pino level. @defaultValue `info` */
  level?: string;
  /** Exact secret values to scrub from every line, whatever path they hide under. */
  secrets?: readonly string[];
  /** Readable output instead of JSON. @defaultValue true when stdout is a TTY */
  pretty?: boolean;
  /** Where lines go. @defaultValue stdout */
  destination?: DestinationStream;
  /** Bound to every line, for example `{ role: 'worker' }`. */
  base?: Record<string, unknown>;
}

function escapeForRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Builds the scrubber applied to each finished line: exact secret values (and their JSON
 * escaped forms) plus URL passwords. It is the last line of defence behind path redaction.
 */
export function createLineScrubber(secrets: readonly string[]): (line: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  const pattern =
    forms.size > 0
      ? new RegExp(
          [...forms]
            .sort((a, b) => b.length - a.length)
            .map(escapeForRegExp)
            .join('|'),
          'g',
        )
      : undefined;
  return (line) => {
    const scrubbed = pattern ? line.replace(pattern, REDACTION) : line;
    return hidePasswordInUrl(scrubbed);
  };
}

/** The one way paysync makes a logger: JSON in production, readable on a TTY, secrets redacted. */
export function createLogger(settings: LoggerSettings = {}): Logger {
  const scrub = createLineScrubber(settings.secrets ?? []);
  const options: LoggerOptions = {
    level: settings.level ?? 'info',
    base: { pid: process.pid, ...settings.base },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...REDACTED_PATHS], censor: REDACTION },
    hooks: { streamWrite: scrub },
  };
  const pretty = settings.pretty ?? (settings.destination === undefined && process.stdout.isTTY);
  if (pretty && settings.destination === undefined) {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { translateTime: 'UTC:isoDateTime' } },
    });
  }
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
