import { z } from 'zod';
import { cronOrOff, type Parsed } from './fields.ts';

// Scheduled exports and closed periods' files (docs/exports.md).

export const EXPORT_VARIABLES = {
  /** When yesterday's books are exported to PAYSYNC_EXPORT_DIR, in PAYSYNC_BOOKS_TIMEZONE. @defaultValue `0 2 * * *` */
  PAYSYNC_EXPORT_CRON: cronOrOff('0 2 * * *'),
  /** Formats of the scheduled and close-time exports, comma-separated. @defaultValue `csv` */
  PAYSYNC_EXPORT_FORMATS: z
    .string()
    .trim()
    .default('csv')
    .transform((value) =>
      value
        .split(',')
        .map((f) => f.trim())
        .filter((f) => f !== ''),
    )
    .refine(
      (formats) =>
        formats.length > 0 &&
        formats.every((f) => ['csv', 'jsonl', 'hledger', 'beancount'].includes(f)),
      { message: 'must be a comma-separated list of csv, jsonl, hledger, beancount' },
    ),
  /** The export folder: daily files and closed periods' frozen files. @defaultValue `./data/exports/` */
  PAYSYNC_EXPORT_DIR: z.string().trim().min(1).default('./data/exports/'),
};

export interface ExportSettings {
  /** Cron of the daily export, in the books' zone, or `off`. @defaultValue `0 2 * * *` */
  readonly cron: string;
  /** @defaultValue `['csv']` */
  readonly formats: readonly ('csv' | 'jsonl' | 'hledger' | 'beancount')[];
  /** @defaultValue `./data/exports/` */
  readonly dir: string;
}

export function exportSettings(e: Parsed<typeof EXPORT_VARIABLES>): ExportSettings {
  return Object.freeze({
    cron: e.PAYSYNC_EXPORT_CRON,
    formats: Object.freeze(e.PAYSYNC_EXPORT_FORMATS as ExportSettings['formats'][number][]),
    dir: e.PAYSYNC_EXPORT_DIR,
  });
}
