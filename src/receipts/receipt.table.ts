import type { Generated, Selectable } from 'kysely';

/**
 * One archived version of a receipt: the HTML is the file `<sha256>.html` in the receipts
 * directory. An identical refetch adds no row; a changed receipt adds one beside the old.
 */
export interface ReceiptTable {
  id: Generated<number>;
  /** `payment_intent` or `transfer`. */
  resource_kind: string;
  resource_id: string;
  /** Hex sha256 of the HTML as received (UTF-8), and so its file name. */
  sha256: string;
  /** Bytes. */
  size: number;
  fetched_at: string;
}

export type ReceiptRow = Selectable<ReceiptTable>;
