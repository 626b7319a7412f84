import { createHash, randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Executor } from '../ledger/index.ts';
import { markOutboxConsumed } from '../outbox/index.ts';
import { createPrivateFolder, PRIVATE_FILE_MODE } from '../private-files.ts';
import type { ReceiptKind } from './receipt-kind.ts';

export interface ArchivedReceipt {
  readonly sha256: string;
  readonly size: number;
  /** Absolute path of the HTML file. */
  readonly path: string;
  /** False when this exact receipt was already on file for the resource (nothing was added). */
  readonly isNew: boolean;
}

export interface ReceiptToArchive {
  readonly resourceKind: ReceiptKind;
  readonly resourceId: string;
  readonly html: string;
  /** UTC ISO 8601. */
  readonly fetchedAt: string;
  /** The outbox row this fetch answers; stamped consumed with the receipt row. */
  readonly outboxId?: number;
}

/** Where the HTML of a receipt with this hash lives. */
export function receiptFilePath(dir: string, sha256: string): string {
  return resolve(join(dir, `${sha256}.html`));
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes the HTML under its sha256, atomically (a temporary file in the same directory, then a
 * rename), unless that file is already there: content-addressed files never change, so an
 * existing one already holds these bytes and is never rewritten.
 */
async function writeContentAddressed(dir: string, sha256: string, bytes: Buffer): Promise<string> {
  const path = receiptFilePath(dir, sha256);
  if (await exists(path)) return path;
  createPrivateFolder(resolve(dir));
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    // Receipts name customers and amounts: readable by the owner alone (0600, whatever the
    // umask). Synced before the rename, so a crash never leaves a short file under the final name.
    const file = await open(temporary, 'wx', PRIVATE_FILE_MODE);
    try {
      await file.chmod(PRIVATE_FILE_MODE);
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  return path;
}

/**
 * Archives one fetched receipt: the file first (so a row never names a missing file), then
 * the `receipts` row and the outbox stamp in one transaction. An identical refetch adds
 * nothing; a changed receipt is a new file and a new row beside the old ones.
 */
export async function archiveReceipt(
  db: Executor,
  dir: string,
  receipt: ReceiptToArchive,
): Promise<ArchivedReceipt> {
  const [archived] = await archiveReceipts(db, dir, [receipt]);
  return archived!;
}

/**
 * {@link archiveReceipt} for the receipts of one follow-up batch, in order: every file first,
 * then every row and outbox stamp in one transaction. One commit per batch, not per receipt:
 * on a year of books a commit costs twice what it costs on an empty database (each touches
 * pages of big indexes), and receipts were half the commits of the pipeline
 * (docs/performance.md). All or none: when the transaction fails, no row of the batch is
 * written or stamped, and each is retried alone.
 */
export async function archiveReceipts(
  db: Executor,
  dir: string,
  receipts: readonly ReceiptToArchive[],
): Promise<ArchivedReceipt[]> {
  if (receipts.length === 0) return [];
  const files = await Promise.all(
    receipts.map(async (receipt) => {
      const bytes = Buffer.from(receipt.html, 'utf8');
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const path = await writeContentAddressed(dir, sha256, bytes);
      return { sha256, size: bytes.length, path };
    }),
  );
  const write = async (trx: Executor): Promise<boolean[]> => {
    const isNew: boolean[] = [];
    for (const [index, receipt] of receipts.entries()) {
      const { sha256, size } = files[index]!;
      const inserted = await trx
        .insertInto('receipts')
        .values({
          resource_kind: receipt.resourceKind,
          resource_id: receipt.resourceId,
          sha256,
          size,
          fetched_at: receipt.fetchedAt,
        })
        .onConflict((oc) => oc.columns(['resource_kind', 'resource_id', 'sha256']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (receipt.outboxId !== undefined)
        await markOutboxConsumed(trx, receipt.outboxId, receipt.fetchedAt);
      isNew.push(inserted !== undefined);
    }
    return isNew;
  };
  const isNew = db.isTransaction ? await write(db) : await db.transaction().execute(write);
  return files.map((file, index) => ({ ...file, isNew: isNew[index]! }));
}
