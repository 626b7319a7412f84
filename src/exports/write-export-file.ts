import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createPrivateFile, createPrivateFolder } from '../private-files.ts';
import { writeExport, type ExportRequest, type ExportResult } from './write-export.ts';

/**
 * Writes an export to `file` atomically: into a temporary file beside it, renamed over `file`
 * only once complete, so a reader never sees half a file. The file is 0600 and the folders
 * paysync creates for it 0700 (exports name customers and amounts).
 */
export async function writeExportFile(request: ExportRequest, file: string): Promise<ExportResult> {
  createPrivateFolder(dirname(file));
  const temporary = `${file}.partial-${process.pid}`;
  try {
    await rm(temporary, { force: true });
    createPrivateFile(temporary);
    const result = await writeExport(request, createWriteStream(temporary, { flags: 'r+' }));
    await rename(temporary, file);
    return result;
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
