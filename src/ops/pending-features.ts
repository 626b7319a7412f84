/**
 * The seam between the ops surfaces and the components they show: alerts, receipts, the
 * scheduled-runs record, missed webhooks, and exports (not merged yet). Each route and panel
 * asks one function here; a `NOT_AVAILABLE` answer becomes 501 `not_available` in the API and
 * a "not available" note on the dashboard. Filling one is replacing its body with a call to
 * the component's index.ts, keeping the signatures.
 */
import { readFile } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import {
  AlertActionError,
  ackAlert,
  listAlerts,
  resolveAlert,
  type AlertRuntime,
} from '../alerts/index.ts';
import type { Database } from '../db/index.ts';
import { missedWebhooksSince, recentRuns } from '../polling/index.ts';
import { receiptFilePath, receiptKindOfId, receiptsFor } from '../receipts/index.ts';

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
  /** True when acked, false when there is no such open (or acked) alert. */
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

/** What the filled functions need beyond the database; without a part, its functions say "not available". */
export interface OpsFeatureParts {
  /** The alert runtime (sinks, routing, clock) acking and resolving go through. */
  readonly alerts?: AlertRuntime;
  /** The receipts archive directory (`config.receipts.dir`). */
  readonly receiptsDir?: string;
}

/** Unknown and already-resolved alerts are "no such open alert"; anything else is a fault. */
async function liveAlertAction(action: () => Promise<unknown>): Promise<boolean> {
  try {
    await action();
    return true;
  } catch (error) {
    if (error instanceof AlertActionError) return false;
    throw error;
  }
}

/**
 * What this build has: alerts (list, and with the runtime ack and resolve), receipts (with
 * the archive directory), the runs record and missed webhooks; exports not yet.
 */
export function opsFeatures(parts: OpsFeatureParts = {}): PendingFeatures {
  const { alerts, receiptsDir } = parts;
  return {
    async listAlerts(db, page) {
      const found = await listAlerts(db, { limit: page.offset + page.limit });
      return found.slice(page.offset).map((alert) => ({
        id: alert.id,
        kind: alert.kind,
        state: alert.status,
        summary: alert.title,
        createdAt: alert.createdAt,
      }));
    },
    ackAlert: alerts
      ? (db, id, by) => liveAlertAction(() => ackAlert({ db, alerts }, id, { note: `by ${by}` }))
      : notAvailable,
    resolveAlert: alerts
      ? (db, id, by) => liveAlertAction(() => resolveAlert({ db, alerts }, id, `by ${by}`))
      : notAvailable,
    listExports: notAvailable,
    openExport: notAvailable,
    receiptHtml:
      receiptsDir === undefined
        ? notAvailable
        : async (db, itemId) => {
            const kind = receiptKindOfId(itemId);
            if (!kind) return undefined;
            // Oldest first: the last row is the newest archived version.
            const newest = (await receiptsFor(db, kind, itemId)).at(-1);
            if (!newest) return undefined;
            return readFile(receiptFilePath(receiptsDir, newest.sha256), 'utf8');
          },
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
}

/** The features with no alert runtime and no receipts directory: those parts say "not available". */
export const pendingFeatures: PendingFeatures = opsFeatures();
