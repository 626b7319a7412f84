import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { closedPeriodsOf } from '../ledger/index.ts';
import type { FrozenExport } from './close-period.ts';
import type { ManifestDay } from './daily-export.ts';
import type { CurrencySums, ExportFormat } from './write-export.ts';

/**
 * One file the export folder holds: a closed month's frozen export (from the ledger's closed periods)
 * or a scheduled day's file (from the folder's `manifest.json`). The id is the file's name,
 * `paysync-YYYY-MM.<ext>` or `paysync-YYYY-MM-DD.<ext>`, unique in the folder.
 */
export interface ExportFileEntry {
  readonly id: string;
  readonly kind: 'closed_period' | 'daily';
  /** `YYYY-MM` for a closed period, `YYYY-MM-DD` for a day. */
  readonly period: string;
  readonly format: ExportFormat;
  readonly rows: number;
  readonly sha256: string;
  /** Size on disk; null when the file is missing (listed, so the gap is seen). */
  readonly bytes: number | null;
  /** Sums per currency (daily files only; a closed period's are in its file). */
  readonly sums: readonly CurrencySums[] | null;
  /** The day's verdict when the daily file was written. */
  readonly verdict: string | null;
  /** When the file was written (generated for a day, closed for a period). */
  readonly at: string;
  /** Closed periods: forced past an unreconciled day, and the close's reason. */
  readonly forced: boolean | null;
  readonly reason: string | null;
  /** Absolute or configured path, for the server only; never shown over HTTP. */
  readonly path: string;
}

/** The only names an export id may have: no folder part, nothing to traverse. */
export const EXPORT_FILE_ID = /^paysync-\d{4}-\d{2}(?:-\d{2})?\.(?:csv|jsonl|journal|beancount)$/;

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}

async function numberedDirs(dir: string, width: number): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const names = await readdir(dir, { withFileTypes: true });
  return names
    .filter((d) => d.isDirectory() && d.name.length === width && /^\d+$/.test(d.name))
    .map((d) => d.name);
}

async function dailyEntries(dir: string): Promise<ExportFileEntry[]> {
  const entries: ExportFileEntry[] = [];
  for (const year of await numberedDirs(dir, 4)) {
    for (const month of await numberedDirs(join(dir, year), 2)) {
      const folder = join(dir, year, month);
      const manifestFile = join(folder, 'manifest.json');
      if (!existsSync(manifestFile)) continue;
      let manifest: { days?: Record<string, ManifestDay> };
      try {
        manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as typeof manifest;
      } catch {
        continue; // a manifest being rewritten is renamed into place; a broken one lists nothing
      }
      for (const day of Object.values(manifest.days ?? {})) {
        for (const file of day.files) {
          const path = join(folder, file.file);
          entries.push({
            id: basename(file.file),
            kind: 'daily',
            period: day.day,
            format: file.format,
            rows: file.rows,
            sha256: file.sha256,
            bytes: await sizeOf(path),
            sums: file.sums,
            verdict: day.verdict,
            at: day.generatedAt,
            forced: null,
            reason: null,
            path,
          });
        }
      }
    }
  }
  return entries;
}

/**
 * Every export file paysync wrote for `environment`: closed periods' frozen files and the
 * scheduled daily files listed in the manifests under `dir`, newest period first.
 */
export async function listExportFiles(options: {
  readonly db: Kysely<Database>;
  readonly dir: string;
  readonly environment: string;
}): Promise<ExportFileEntry[]> {
  const closed = await closedPeriodsOf(options.db, options.environment);
  const entries: ExportFileEntry[] = [];
  for (const row of closed) {
    for (const frozen of JSON.parse(row.exports) as FrozenExport[]) {
      entries.push({
        id: basename(frozen.file),
        kind: 'closed_period',
        period: row.period,
        format: frozen.format,
        rows: frozen.rows,
        sha256: frozen.sha256,
        bytes: await sizeOf(frozen.file),
        sums: null,
        verdict: null,
        at: row.closed_at,
        forced: Number(row.forced) === 1,
        reason: row.reason,
        path: frozen.file,
      });
    }
  }
  entries.push(...(await dailyEntries(options.dir)));
  return entries.sort((a, b) => b.period.localeCompare(a.period) || a.id.localeCompare(b.id));
}

/** The listed file with this id, or undefined (an id that is not a bare export name never is). */
export async function findExportFile(options: {
  readonly db: Kysely<Database>;
  readonly dir: string;
  readonly environment: string;
  readonly id: string;
}): Promise<ExportFileEntry | undefined> {
  if (!EXPORT_FILE_ID.test(options.id)) return undefined;
  const entries = await listExportFiles(options);
  return entries.find((entry) => entry.id === options.id && entry.bytes !== null);
}
