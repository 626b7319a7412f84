import { InvalidArgumentError } from 'commander';
import type { LedgerResourceKind } from '../../ledger/index.ts';

/** What `paysync list` takes, and the ledger kinds behind each. */
export const LIST_KINDS = {
  intents: ['payment_intent'],
  transfers: ['transfer'],
  refunds: ['refund', 'payment_refund'],
} as const satisfies Record<string, readonly LedgerResourceKind[]>;

export type ListKind = keyof typeof LIST_KINDS;

const ALIASES: Readonly<Record<string, ListKind>> = {
  intents: 'intents',
  intent: 'intents',
  'payment-intents': 'intents',
  payments: 'intents',
  transfers: 'transfers',
  transfer: 'transfers',
  refunds: 'refunds',
  refund: 'refunds',
  'payment-refunds': 'refunds',
};

/** Commander argument parser for `<kind>`. */
export function listKind(value: string): ListKind {
  const kind = ALIASES[value.trim().toLowerCase()];
  if (!kind) {
    throw new InvalidArgumentError(
      `"${value}" is not something paysync lists: use intents, transfers or refunds`,
    );
  }
  return kind;
}
