import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { dayWindow } from '../books-calendar/index.ts';
import { createPrivateFile, createPrivateFolder } from '../private-files.ts';
import { storedVerdicts } from '../reports/index.ts';
import type { ExportWindow } from './export-line.ts';
import { writeExportFile } from './write-export-file.ts';
import { EXPORT_EXTENSIONS, type CurrencySums, type ExportFormat } from './write-export.ts';

export interface ManifestFile {
  /** Relative to the manifest. */
  readonly file: string;
  readonly format: ExportFormat;
  readonly rows: number;
  readonly sums: readonly CurrencySums[];
  readonly sha256: string;
  /** False when a rerun found the same content and left the file as it was. */
  readonly rewritten: boolean;
}

export interface ManifestDay {
  readonly day: string;
  readonly window: ExportWindow;
  /** The stored daily verdict, or null when the day has none yet. */
  readonly verdict: string | null;
  readonly generatedAt: string;
  readonly files: readonly ManifestFile[];
}

export interface DailyExportRequest {
  readonly db: Kysely<Database>;
  readonly environment: string;
  readonly timeZone: string;
  readonly formats: readonly ExportFormat[];
  readonly dir: string;
  /** The books day to export, YYYY-MM-DD. */
  readonly day: string;
  /** The caller's clock reading: when the files were generated. */
  readonly now: Date;
}

async function sha256Of(file: string): Promise<string | undefined> {
  if (!existsSync(file)) return undefined;
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/**
 * Writes one books day's export in each format to `dir/YYYY/MM/paysync-YYYY-MM-DD.<ext>`, each
 * atomically, and records it in `dir/YYYY/MM/manifest.json` (one entry per day). A rerun
 * replaces a file only when its content changed.
 */
export async function runDailyExport(request: DailyExportRequest): Promise<ManifestDay> {
  const { db, environment, timeZone, day } = request;
  const window = dayWindow(day, timeZone);
  const [year, month] = day.split('-');
  const folder = resolve(join(request.dir, year!, month!));
  createPrivateFolder(folder);
  const files: ManifestFile[] = [];
  for (const format of request.formats) {
    const name = `paysync-${day}.${EXPORT_EXTENSIONS[format]}`;
    const target = join(folder, name);
    const candidate = `${target}.candidate-${process.pid}`;
    const result = await writeExportFile({ db, format, window, environment, timeZone }, candidate);
    const rewritten = (await sha256Of(target)) !== result.sha256;
    if (rewritten) await rename(candidate, target);
    else await rm(candidate, { force: true });
    files.push({
      file: name,
      format,
      rows: result.rows,
      sums: result.sums,
      sha256: result.sha256,
      rewritten,
    });
  }
  const verdict =
    (await storedVerdicts(db, environment, { since: day, limit: 62 })).find((v) => v.day === day)
      ?.verdict ?? null;
  const entry: ManifestDay = {
    day,
    window,
    verdict,
    generatedAt: request.now.toISOString(),
    files,
  };
  const manifestFile = join(folder, 'manifest.json');
  const manifest = existsSync(manifestFile)
    ? (JSON.parse(await readFile(manifestFile, 'utf8')) as { days: Record<string, ManifestDay> })
    : { days: {} as Record<string, ManifestDay> };
  manifest.days[day] = entry;
  const sorted = Object.fromEntries(
    Object.entries(manifest.days).sort(([a], [b]) => a.localeCompare(b)),
  );
  const temporary = `${manifestFile}.partial-${process.pid}`;
  await rm(temporary, { force: true });
  createPrivateFile(temporary);
  await writeFile(
    temporary,
    `${JSON.stringify({ environment, timeZone, days: sorted }, null, 2)}\n`,
  );
  await rename(temporary, manifestFile);
  return entry;
}
