import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { nextDay, startOfDay } from '../books-calendar/index.ts';
import {
  closedPeriodByWindow,
  deleteClosedPeriod,
  findClosedPeriod,
  insertClosedPeriod,
  insertPeriodEvent,
} from '../ledger/index.ts';
import { storedVerdicts } from '../reports/index.ts';
import type { ExportWindow } from './export-line.ts';
import { writeExportFile } from './write-export-file.ts';
import { EXPORT_EXTENSIONS, type ExportFormat } from './write-export.ts';

/** A day of the period that is not RECONCILED, and its stored verdict (null: none stored). */
export interface UnreconciledDay {
  readonly day: string;
  readonly verdict: string | null;
}

/** Why a close or reopen changed nothing, as data; the doors word it. */
export type PeriodRefusal =
  /** A forced close, or a reopen, without a reason. */
  | { readonly code: 'period_reason_required'; readonly action: 'close' | 'reopen' }
  | {
      readonly code: 'period_already_closed';
      readonly period: string;
      readonly environment: string;
      readonly closedAt: string;
    }
  | {
      readonly code: 'period_not_reconciled';
      readonly period: string;
      readonly environment: string;
      readonly unreconciled: readonly UnreconciledDay[];
    }
  | { readonly code: 'period_not_closed'; readonly period: string; readonly environment: string };

export type PeriodErrorCode = PeriodRefusal['code'];

function plainMessage(refusal: PeriodRefusal): string {
  switch (refusal.code) {
    case 'period_reason_required':
      return `a ${refusal.action === 'close' ? 'forced close' : 'reopen'} needs a reason`;
    case 'period_already_closed':
      return `${refusal.period} (${refusal.environment}) is already closed since ${refusal.closedAt}`;
    case 'period_not_reconciled':
      return `${refusal.period} (${refusal.environment}) has ${refusal.unreconciled.length} day(s) not RECONCILED`;
    case 'period_not_closed':
      return `${refusal.period} (${refusal.environment}) is not closed`;
  }
}

/** A refused close or reopen; `refusal` says why, with its facts. */
export class PeriodError extends Error {
  override readonly name = 'PeriodError';
  readonly code: PeriodErrorCode;
  constructor(readonly refusal: PeriodRefusal) {
    super(plainMessage(refusal));
    this.code = refusal.code;
  }
}

export interface FrozenExport {
  readonly format: ExportFormat;
  readonly file: string;
  readonly sha256: string;
  readonly rows: number;
}

export interface ClosedPeriod {
  readonly environment: string;
  readonly period: string;
  readonly window: ExportWindow;
  readonly closedAt: string;
  readonly forced: boolean;
  readonly exports: readonly FrozenExport[];
}

/** `2026-11` → its `[from, to)` in the books' zone. */
export function periodWindow(period: string, timeZone: string): ExportWindow {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const next = month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, '0')}`;
  return {
    from: startOfDay(`${period}-01`, timeZone).toISOString(),
    to: startOfDay(`${next}-01`, timeZone).toISOString(),
  };
}

export interface ClosePeriodRequest {
  readonly db: Kysely<Database>;
  readonly environment: string;
  /** `YYYY-MM`. */
  readonly period: string;
  readonly timeZone: string;
  readonly formats: readonly ExportFormat[];
  /** The export folder; frozen files go to `YYYY/MM/paysync-YYYY-MM.<ext>` below it. */
  readonly dir: string;
  /** Close although some day is not RECONCILED; needs `reason`. @defaultValue false */
  readonly force?: boolean;
  readonly reason?: string;
  readonly by: string;
  /** The caller's clock reading: when the period closed. */
  readonly now: Date;
}

/**
 * Closes a month: refused unless every day of it has a stored `RECONCILED` verdict (or `force`
 * with a reason). Writes the month's export once per format to the export folder, and records
 * the files' sha256 in the ledger's closed periods; from then on the ledger books a change touching the
 * month at the start of the first open period instead (src/ledger/late-change.ts).
 */
export async function closePeriod(request: ClosePeriodRequest): Promise<ClosedPeriod> {
  const { db, environment, period, timeZone } = request;
  const now = request.now.toISOString();
  if (request.force && !request.reason?.trim()) {
    throw new PeriodError({ code: 'period_reason_required', action: 'close' });
  }
  const existing = await findClosedPeriod(db, environment, period);
  if (existing) {
    throw new PeriodError({
      code: 'period_already_closed',
      period,
      environment,
      closedAt: existing.closed_at,
    });
  }
  const window = periodWindow(period, timeZone);
  const days: string[] = [];
  for (let day = `${period}-01`; day.startsWith(period); day = nextDay(day)) days.push(day);
  const verdicts = new Map(
    (await storedVerdicts(db, environment, { since: days[0]!, limit: 62 })).map((v) => [
      v.day,
      v.verdict,
    ]),
  );
  const unreconciledDays: UnreconciledDay[] = days
    .filter((day) => verdicts.get(day) !== 'RECONCILED')
    .map((day) => ({ day, verdict: verdicts.get(day) ?? null }));
  if (unreconciledDays.length > 0 && !request.force) {
    throw new PeriodError({
      code: 'period_not_reconciled',
      period,
      environment,
      unreconciled: unreconciledDays,
    });
  }
  // The period event's record, as it has always been written.
  const unreconciled = unreconciledDays.map(
    ({ day, verdict }) => `${day} ${verdict ?? 'no verdict'}`,
  );
  const [year, month] = period.split('-');
  const exports: FrozenExport[] = [];
  for (const format of request.formats) {
    const file = resolve(
      join(request.dir, year!, month!, `paysync-${period}.${EXPORT_EXTENSIONS[format]}`),
    );
    const result = await writeExportFile({ db, format, window, environment, timeZone }, file);
    exports.push({ format, file, sha256: result.sha256, rows: result.rows });
  }
  await db.transaction().execute(async (trx) => {
    await insertClosedPeriod(trx, {
      environment,
      period,
      window_from: window.from,
      window_to: window.to,
      closed_at: now,
      closed_by: request.by,
      forced: request.force ? 1 : 0,
      reason: request.reason?.trim() || null,
      exports: JSON.stringify(exports),
    });
    await insertPeriodEvent(trx, {
      environment,
      period,
      action: 'close',
      at: now,
      by: request.by,
      reason: request.reason?.trim() || null,
      detail: JSON.stringify({ unreconciled, exports }),
    });
  });
  return { environment, period, window, closedAt: now, forced: Boolean(request.force), exports };
}

/** Reopens a closed month; refused without a reason. Logged in the ledger's period events. */
export async function reopenPeriod(request: {
  db: Kysely<Database>;
  environment: string;
  period: string;
  reason: string;
  by: string;
  /** The caller's clock reading: when the period reopened. */
  now: Date;
}): Promise<void> {
  const { db, environment, period } = request;
  if (!request.reason.trim()) {
    throw new PeriodError({ code: 'period_reason_required', action: 'reopen' });
  }
  const now = request.now.toISOString();
  await db.transaction().execute(async (trx) => {
    const row = await deleteClosedPeriod(trx, environment, period);
    if (!row) throw new PeriodError({ code: 'period_not_closed', period, environment });
    await insertPeriodEvent(trx, {
      environment,
      period,
      action: 'reopen',
      at: now,
      by: request.by,
      reason: request.reason.trim(),
      detail: JSON.stringify({
        closedAt: row.closed_at,
        exports: JSON.parse(row.exports) as unknown,
      }),
    });
  });
}

/**
 * The frozen file of a closed period whose window is exactly `window`, checked against its
 * recorded sha256; undefined when the window is not a closed period or the format was not
 * frozen. Re-exporting a closed month serves these bytes, so it is byte-identical.
 */
export async function frozenExport(
  db: Kysely<Database>,
  options: { environment: string; window: ExportWindow; format: ExportFormat },
): Promise<{ content: Buffer; frozen: FrozenExport } | undefined> {
  const row = await closedPeriodByWindow(db, options.environment, options.window);
  if (!row) return undefined;
  const frozen = (JSON.parse(row.exports) as FrozenExport[]).find(
    (e) => e.format === options.format,
  );
  if (!frozen) return undefined;
  const content = await readFile(frozen.file);
  const sha = createHash('sha256').update(content).digest('hex');
  if (sha !== frozen.sha256) {
    throw new Error(
      `the frozen export of closed period ${row.period} at ${frozen.file} has changed (sha256 ${sha}, recorded ${frozen.sha256}); restore it, or reopen and close the period again`,
    );
  }
  return { content, frozen };
}
