import { createTransport } from 'nodemailer';
import { hidePasswordInUrl } from '../../config/index.ts';
import { headline, type AlertMessage } from '../alert-message.ts';
import { SinkError, type AlertSink } from './alert-sink.ts';

/** Subject and plain-text body of one alert e-mail. */
export function emailContent(message: AlertMessage): { subject: string; text: string } {
  const subject = `[paysync ${message.severity}] ${headline(message)}`;
  const footer = [
    `Kind: ${message.kind} · severity: ${message.severity}${message.alertId !== undefined ? ` · alert ${message.alertId}` : ''}`,
    `At: ${message.at}`,
    `See more: ${message.hint}`,
    message.alertId !== undefined && message.event !== 'resolved'
      ? `Acknowledge: paysync alerts ack ${message.alertId} --note "…" (--for 4h to snooze)`
      : undefined,
  ].filter(Boolean);
  // Backticks are Slack markup; plain text reads better without them.
  const body = message.body.replace(/`/g, '');
  return { subject, text: `${headline(message)}\n\n${body}\n\n--\n${footer.join('\n')}\n` };
}

export interface EmailSinkOptions {
  /** `smtp://user:pass@host:port` (STARTTLS when the server offers it) or `smtps://…`. */
  readonly url: string;
  readonly from: string;
  readonly to: readonly string[];
  /** Connection, greeting and socket timeouts. @defaultValue 10000 */
  readonly timeoutMs?: number;
  /**
   * Send credentials without TLS (PAYSYNC_ALERT_SMTP_ALLOW_PLAINTEXT). Off, a URL with a user
   * name requires TLS: STARTTLS must succeed before AUTH, or the mail fails. @defaultValue false
   */
  readonly allowPlaintext?: boolean;
  /** Accept self-signed certificates (tests). @defaultValue false */
  readonly allowSelfSigned?: boolean;
}

/**
 * E-mail through SMTP with nodemailer. A refusal fails with the server's own reply
 * (`550 5.7.1 …`), which the delivery state keeps; the password never appears in it.
 */
export function emailSink(options: EmailSinkOptions): AlertSink {
  const timeout = options.timeoutMs ?? 10_000;
  const hasCredentials = URL.canParse(options.url) && new URL(options.url).username !== '';
  const requireTLS = hasCredentials && options.allowPlaintext !== true;
  const transport = createTransport({
    url: options.url,
    requireTLS,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    ...(options.allowSelfSigned ? { tls: { rejectUnauthorized: false } } : {}),
  });
  return {
    name: 'email',
    // A mail per resolution is noise in an inbox; the chat and webhook sinks carry it.
    takesResolved: false,
    async send(message) {
      const { subject, text } = emailContent(message);
      try {
        await transport.sendMail({ from: options.from, to: [...options.to], subject, text });
      } catch (error) {
        const reply = (error as { response?: unknown }).response;
        const code = (error as { code?: string }).code;
        const reason =
          requireTLS && code === 'ETLS'
            ? `SMTP refused before login: the server did not start TLS (${typeof reply === 'string' && reply !== '' ? reply : (error as Error).message}), and credentials are sent only over TLS: use smtps://, a server that offers STARTTLS, or PAYSYNC_ALERT_SMTP_ALLOW_PLAINTEXT=true`
            : typeof reply === 'string' && reply !== ''
              ? `SMTP server replied: ${reply}`
              : `SMTP failed: ${code ?? ''} ${(error as Error).message}`.trim();
        throw new SinkError('email', hidePasswordInUrl(reason.replace(/\s+/g, ' ')));
      }
    },
    async close() {
      transport.close();
    },
  };
}
