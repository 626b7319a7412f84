import type { ExportWindow } from './export-line.ts';

/** What every format states about the export itself. */
export interface RenderMeta {
  readonly environment: string;
  readonly window: ExportWindow;
  readonly timeZone: string;
}
