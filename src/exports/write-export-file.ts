import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeExport, type ExportRequest, type ExportResult } from './write-export.ts';

/**
 * Writes an export to `file` atomically: into a temporary file beside it, renamed over `file`
 * only once complete, so a reader never sees half a file.
 */
export async function writeExportFile(request: ExportRequest, file: string): Promise<ExportResult> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.partial-${process.pid}`;
  try {
    const result = await writeExport(request, createWriteStream(temporary));
    await rename(temporary, file);
    return result;
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
