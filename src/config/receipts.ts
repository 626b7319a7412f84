import { z } from 'zod';
import type { Parsed } from './fields.ts';

// The receipt archive (docs/receipts.md).

export const RECEIPT_VARIABLES = {
  /** Where receipt HTML is archived, one file per sha256. @defaultValue `./data/receipts/` */
  PAYSYNC_RECEIPTS_DIR: z.string().trim().min(1).default('./data/receipts/'),
};

export interface ReceiptSettings {
  /** @defaultValue `./data/receipts/` */
  readonly dir: string;
}

export function receiptSettings(e: Parsed<typeof RECEIPT_VARIABLES>): ReceiptSettings {
  return Object.freeze({ dir: e.PAYSYNC_RECEIPTS_DIR });
}
