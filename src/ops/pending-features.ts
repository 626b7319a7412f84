/**
 * The seam for the parts of the product not merged into this branch yet: alerts, exports,
 * receipts and the scheduled-runs record. Each route and panel asks one function here; a
 * `NOT_AVAILABLE` answer becomes 501 `not_available` in the API and a "not available" note
 * on the dashboard. At merge, the lead replaces a function's body with a call to the
 * component's index.ts (e.g. `listAlerts` → `src/alerts`), keeping the signatures.
 */
import type { Kysely } from 'kysely';
import { listAlerts } from '../alerts/index.ts';
import type { Database } from '../db/index.ts';
import { missedWebhooksSince, recentRuns } from '../polling/index.ts';

export const NOT_AVAILABLE = Symbol('not available');
export type NotAvailable = typeof NOT_AVAILABLE;

/** What a part not merged yet says instead of an answer. */
export const NOT_AVAILABLE_MESSAGES = {
  alerts: 'alerts are not available in this build (the alerts component is not merged yet)',
  exports: 'exports are not available in this build (the exports component is not merged yet)',
  receipts: 'receipts are not available in this build (the receipts component is not merged yet)',
  runs: 'scheduled runs are not available in this build (the runs record is not merged yet)',
  missed: 'missed webhooks are not available in this build (the sweeps are not merged yet)',
} as const;

export type PendingFeature = keyof typeof NOT_AVAILABLE_MESSAGES;

export interface AlertView {
  readonly id: number;
  readonly kind: string;
  readonly state: string;
  readonly summary: string;
  readonly createdAt: string;
}

export interface ExportView {
  readonly id: string;
  readonly period: string;
  readonly file: string;
  readonly bytes: number;
}

export interface RunView {
  readonly task: string;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly outcome: string;
}

/** The functions the lead fills at merge. */
export interface PendingFeatures {
  listAlerts(
    db: Kysely<Database>,
    page: { limit: number; offset: number },
  ): Promise<AlertView[] | NotAvailable>;
  /** True when acked, false when there is no such open alert. */
  ackAlert(db: Kysely<Database>, id: number, by: string): Promise<boolean | NotAvailable>;
  resolveAlert(db: Kysely<Database>, id: number, by: string): Promise<boolean | NotAvailable>;
  listExports(
    db: Kysely<Database>,
    page: { limit: number; offset: number },
  ): Promise<ExportView[] | NotAvailable>;
  /** The file as a stream, undefined when unknown. */
  openExport(
    db: Kysely<Database>,
    id: string,
  ): Promise<{ name: string; stream: NodeJS.ReadableStream } | undefined | NotAvailable>;
  /** The receipt HTML of an item, undefined when it has none. */
  receiptHtml(db: Kysely<Database>, itemId: string): Promise<string | undefined | NotAvailable>;
  /** The last run of each scheduled task. */
  lastRuns(db: Kysely<Database>): Promise<RunView[] | NotAvailable>;
  /** Events the sweeps found that no webhook had announced, since an instant. */
  missedWebhooks(db: Kysely<Database>, since: string): Promise<number | NotAvailable>;
}

const notAvailable = async (): Promise<NotAvailable> => NOT_AVAILABLE;

/** What this build has: alerts (read), the runs record and missed webhooks; the rest not yet. */
export const pendingFeatures: PendingFeatures = {
  async listAlerts(db, page) {
    const alerts = await listAlerts(db, { limit: page.offset + page.limit });
    return alerts.slice(page.offset).map((alert) => ({
      id: alert.id,
      kind: alert.kind,
      state: alert.status,
      summary: alert.title,
      createdAt: alert.createdAt,
    }));
  },
  ackAlert: notAvailable,
  resolveAlert: notAvailable,
  listExports: notAvailable,
  openExport: notAvailable,
  receiptHtml: notAvailable,
  async lastRuns(db) {
    const newest = new Map<string, RunView>();
    for (const run of await recentRuns(db, { limit: 500 })) {
      if (!newest.has(run.task)) {
        newest.set(run.task, {
          task: run.task,
          startedAt: run.startedAt,
          finishedAt: run.finishedAt,
          outcome: run.outcome,
        });
      }
    }
    return [...newest.values()];
  },
  missedWebhooks: (db, since) => missedWebhooksSince(db, since),
};
