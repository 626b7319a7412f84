/**
 * The seam between the ops surfaces and the components they show: alerts, receipts, exports,
 * the scheduled-runs record and missed webhooks. Each route and panel asks one function here.
 * A part the process was built without (no alert runtime, no receipts directory, no export
 * folder) answers `NOT_AVAILABLE`, which becomes 501 `not_available` in the API and a "not
 * available" note on the dashboard; `paysync serve`, `start` and the demo give them all.
 */
import { createReadStream } from 'node:fs';
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
import { findExportFile, listExportFiles, type ExportFileEntry } from '../exports/index.ts';
import { missedWebhooksSince, recentRuns } from '../runs/index.ts';
import { receiptFilePath, receiptKindOfId, receiptsFor } from '../receipts/index.ts';

export const NOT_AVAILABLE = Symbol('not available');
export type NotAvailable = typeof NOT_AVAILABLE;

/** What a part this process was started without says instead of an answer. */
export const NOT_AVAILABLE_MESSAGES = {
  alerts: 'alert actions are not available here (this process runs without the alert runtime)',
  exports: 'exports are not available here (this process was given no export folder)',
  receipts: 'receipts are not available here (this process was given no receipts directory)',
  runs: 'scheduled runs are not available here',
  missed: 'missed webhooks are not available here',
} as const;

export type OptionalPart = keyof typeof NOT_AVAILABLE_MESSAGES;

export interface AlertView {
  readonly id: number;
  readonly kind: string;
  readonly state: string;
  readonly summary: string;
  readonly createdAt: string;
}

/** One export file as the API and the dashboard show it (no server path). */
export type ExportView = Omit<ExportFileEntry, 'path'>;

export interface RunView {
  readonly task: string;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly outcome: string;
}

/** What the ops surfaces read and do through other components, one function each. */
export interface OpsFeatures {
  listAlerts(
    db: Kysely<Database>,
    page: { limit: number; offset: number },
  ): Promise<AlertView[] | NotAvailable>;
  /** True when acked, false when there is no such open (or acked) alert. */
  ackAlert(db: Kysely<Database>, id: number, by: string): Promise<boolean | NotAvailable>;
  resolveAlert(db: Kysely<Database>, id: number, by: string): Promise<boolean | NotAvailable>;
  /** Closed periods' frozen files and the scheduled daily files, newest period first. */
  listExports(
    db: Kysely<Database>,
    page: { limit: number; offset: number; kind?: ExportView['kind']; format?: string },
  ): Promise<ExportView[] | NotAvailable>;
  /** The listed file with this id, opened as a stream; undefined when unknown or missing. */
  openExport(
    db: Kysely<Database>,
    id: string,
  ): Promise<{ view: ExportView; stream: NodeJS.ReadableStream } | undefined | NotAvailable>;
  /** The receipt HTML of an item, undefined when it has none. */
  receiptHtml(db: Kysely<Database>, itemId: string): Promise<string | undefined | NotAvailable>;
  /** The last run of each scheduled task. */
  lastRuns(db: Kysely<Database>): Promise<RunView[] | NotAvailable>;
  /** Events the sweeps found that no webhook had announced, since an instant. */
  missedWebhooks(db: Kysely<Database>, since: string): Promise<number | NotAvailable>;
}

function viewOf(entry: ExportFileEntry): ExportView {
  const { path: _path, ...view } = entry;
  return view;
}

const notAvailable = async (): Promise<NotAvailable> => NOT_AVAILABLE;

/** What the functions need beyond the database; without a part, its functions say "not available". */
export interface OpsFeatureParts {
  /** The alert runtime (sinks, routing, clock) acking and resolving go through. */
  readonly alerts?: AlertRuntime;
  /** The receipts archive directory (`config.receipts.dir`). */
  readonly receiptsDir?: string;
  /** The export folder (`config.exports.dir`) and the environment whose closed periods to list. */
  readonly exports?: { readonly dir: string; readonly environment: string };
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
 * the archive directory), exports (with the export folder), the runs record and missed webhooks.
 */
export function opsFeatures(parts: OpsFeatureParts = {}): OpsFeatures {
  const { alerts, receiptsDir, exports } = parts;
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
    listExports: exports
      ? async (db, page) => {
          const all = await listExportFiles({ db, ...exports });
          return all
            .filter(
              (e) =>
                (page.kind === undefined || e.kind === page.kind) &&
                (page.format === undefined || e.format === page.format),
            )
            .slice(page.offset, page.offset + page.limit)
            .map(viewOf);
        }
      : notAvailable,
    openExport: exports
      ? async (db, id) => {
          const found = await findExportFile({ db, ...exports, id });
          if (!found) return undefined;
          return { view: viewOf(found), stream: createReadStream(found.path) };
        }
      : notAvailable,
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
