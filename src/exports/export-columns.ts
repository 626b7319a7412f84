import { decimalAmount } from '../money/index.ts';
import type { ExportLine } from './export-line.ts';

/** The CSV header and JSONL keys, in order; docs/exports.md documents each one. */
export const EXPORT_COLUMNS = [
  'journal_id',
  'line_no',
  'effective_at',
  'posted_at',
  'resource_kind',
  'resource_id',
  'reference',
  'description',
  'entry_type',
  'settlement_key',
  'reverses_journal_id',
  'account',
  'side',
  'amount_minor',
  'amount',
  'currency',
  'environment',
  'receipt_sha256',
  'late_change_period',
  'original_effective_at',
  'adjusts_journal_id',
  'expectation_id',
] as const;

export type ExportRecord = Record<(typeof EXPORT_COLUMNS)[number], string | number | null>;

/** One line as a flat record: the shared shape of the CSV row and the JSONL object. */
export function exportRecord(line: ExportLine, environment: string): ExportRecord {
  return {
    journal_id: line.journalId,
    line_no: line.lineNo,
    effective_at: line.effectiveAt,
    posted_at: line.postedAt,
    resource_kind: line.resourceKind,
    resource_id: line.resourceId,
    reference: line.reference,
    description: line.description,
    entry_type: line.entryType,
    settlement_key: line.settlementKey,
    reverses_journal_id: line.reverses,
    account: line.account,
    side: line.amount > 0 ? 'debit' : 'credit',
    amount_minor: line.amount,
    amount: decimalAmount(line.amount, line.currency),
    currency: line.currency,
    environment,
    receipt_sha256: line.receiptSha256,
    late_change_period: line.lateChangeOf,
    original_effective_at: line.originalEffectiveAt,
    adjusts_journal_id: line.adjusts,
    expectation_id: line.expectationId,
  };
}
