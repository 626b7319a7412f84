import type { AlertKind, Severity } from './alert-kind.ts';

/** Why a message goes out. */
export type AlertEvent = 'firing' | 'reminder' | 'resolved' | 'digest' | 'test';

/**
 * One message as every sink receives it, already masked. Stored with each delivery so a
 * retry sends exactly what the first try sent.
 */
export interface AlertMessage {
  readonly event: AlertEvent;
  /** The alert, or undefined for a digest (which lists its alerts in `alertIds`). */
  readonly alertId: number | undefined;
  readonly digestId?: number;
  readonly kind: AlertKind;
  readonly severity: Severity;
  /** One line. */
  readonly title: string;
  /** A few lines of plain text. */
  readonly body: string;
  /** What to run to see more, for example `paysync show tr_…`. */
  readonly hint: string;
  /** The resource the alert is about, when one. */
  readonly subject: string | null;
  /** The facts behind the title (masked). */
  readonly detail: Readonly<Record<string, unknown>>;
  /** A digest's alerts. */
  readonly alertIds?: readonly number[];
  /** When the alert was raised (or the digest closed), UTC ISO 8601 with milliseconds. */
  readonly at: string;
}

/** `paysync show <id>` when the alert is about a resource, else where to look. */
export function hintFor(subject: string | null, alertId: number | undefined): string {
  if (subject?.startsWith('ep_')) return `paysync endpoints show ${subject}`;
  if (subject) return `paysync show ${subject}`;
  return alertId !== undefined
    ? `paysync alerts list --open (alert ${alertId})`
    : 'paysync alerts list --open';
}

/** The one-line heading every sink starts with. */
export function headline(message: AlertMessage): string {
  switch (message.event) {
    case 'resolved':
      return `Resolved: ${message.title}`;
    case 'reminder':
      return `Still open: ${message.title}`;
    case 'test':
      return `Test: ${message.title}`;
    default:
      return message.title;
  }
}
