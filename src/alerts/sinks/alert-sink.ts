import type { AlertMessage } from '../alert-message.ts';

export const SINK_NAMES = ['slack', 'email', 'webhook', 'log'] as const;
export type SinkName = (typeof SINK_NAMES)[number];

/** Where alerts go. `send` resolves once the other side accepted the message. */
export interface AlertSink {
  readonly name: SinkName;
  /** Whether the sink gets a message when an alert resolves. */
  readonly takesResolved: boolean;
  /** `deliveryId` is stable across retries, so a receiver can drop a repeat. */
  send(message: AlertMessage, deliveryId: number): Promise<void>;
  close?(): Promise<void>;
}

/** A sink refused or could not take a message; `message` is the other side's own words. */
export class SinkError extends Error {
  override readonly name = 'SinkError';
  constructor(
    readonly sink: SinkName,
    message: string,
  ) {
    super(message);
  }
}

/** The first 300 characters of a response body, on one line: enough to say why. */
export function shortBody(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Why a request never got an answer (`ECONNREFUSED`, `TimeoutError`), never the URL. */
export function networkReason(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause as
    { code?: unknown; errors?: { code?: unknown }[] } | undefined;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'network error';
}
