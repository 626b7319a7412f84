import type { ExportLine } from './export-line.ts';

/** One line of an {@link ExportJournal}: what varies from line to line. */
export interface ExportJournalLine {
  readonly lineNo: number;
  readonly account: string;
  readonly currency: string;
  /** Signed minor units: debit positive, credit negative. */
  readonly amount: number;
}

/**
 * One journal with its lines, as the export reads it: the journal's fields once, not once per
 * line (a million lines are about 400,000 journals). Fields mean what they mean on
 * {@link ExportLine}.
 */
export type ExportJournal = Omit<ExportLine, 'lineNo' | 'account' | 'currency' | 'amount'> & {
  readonly lines: readonly ExportJournalLine[];
};

/** One line of a journal as the flat {@link ExportLine} (JSONL, and `readExportLines`). */
export function exportLineOf(journal: ExportJournal, line: ExportJournalLine): ExportLine {
  return {
    journalId: journal.journalId,
    lineNo: line.lineNo,
    effectiveAt: journal.effectiveAt,
    postedAt: journal.postedAt,
    resourceKind: journal.resourceKind,
    resourceId: journal.resourceId,
    reference: journal.reference,
    description: journal.description,
    entryType: journal.entryType,
    settlementKey: journal.settlementKey,
    reverses: journal.reverses,
    account: line.account,
    currency: line.currency,
    amount: line.amount,
    lateChangeOf: journal.lateChangeOf,
    originalEffectiveAt: journal.originalEffectiveAt,
    adjusts: journal.adjusts,
    receiptSha256: journal.receiptSha256,
    expectationId: journal.expectationId,
  };
}
