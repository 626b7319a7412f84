import { decimalAmount } from '../money/index.ts';
import { stringifyCsv } from './csv-text.ts';
import { EXPORT_COLUMNS } from './export-columns.ts';
import type { ExportJournal } from './export-journal.ts';
import type { RenderMeta } from './render-meta.ts';

const OPTIONS = { record_delimiter: 'unix' } as const;

/**
 * csv-stringify's encoding of each record, one string per record without the line end: one
 * call for the records whose fields hold no line break (their output lines split back apart
 * exactly), and one call per record that has one (its quoted field spans lines).
 */
function encodeRecords(records: readonly (readonly unknown[])[]): string[] {
  const simple: (readonly unknown[])[] = [];
  const hasBreak = records.map((record) =>
    record.some((field) => typeof field === 'string' && /[\r\n]/.test(field)),
  );
  records.forEach((record, i) => {
    if (!hasBreak[i]) simple.push(record);
  });
  const lines = simple.length > 0 ? stringifyCsv(simple, OPTIONS).split('\n') : [];
  let next = 0;
  return records.map((record, i) =>
    hasBreak[i] ? stringifyCsv([record], OPTIONS).slice(0, -1) : lines[next++]!,
  );
}

/**
 * RFC 4180 CSV, one row per journal line, every text field encoded by csv-stringify with the
 * formula rule of {@link stringifyCsv} (a reference `=HYPERLINK(…)` leaves as `"'=HYPERLINK(…)"`). A
 * journal's fields are the same on each of its lines, so they are encoded once per journal, in
 * batches of a page, by runs of consecutive columns; the few-valued columns (kind, entry type,
 * settlement key, account, currency, side, and the journal's last six columns when they are
 * empty but for the environment) are encoded once per distinct value; numbers, which never need
 * quoting, are written as csv-stringify writes them. Each page leaves as one chunk.
 */
export async function* renderCsv(
  pages: AsyncIterable<readonly ExportJournal[]>,
  meta: RenderMeta,
): AsyncGenerator<string> {
  yield stringifyCsv([], { ...OPTIONS, header: true, columns: [...EXPORT_COLUMNS] });
  const cells = new Map<string, string>();
  const cell = (value: string): string => {
    let encoded = cells.get(value);
    if (encoded === undefined) cells.set(value, (encoded = encodeRecords([[value]])[0]!));
    return encoded;
  };
  const debit = cell('debit');
  const credit = cell('credit');
  const plainTail = encodeRecords([[meta.environment, null, null, null, null, null]])[0]!;
  const isPlain = (j: ExportJournal) =>
    j.expectationId === null &&
    j.receiptSha256 === null &&
    j.lateChangeOf === null &&
    j.originalEffectiveAt === null &&
    j.adjusts === null;
  for await (const page of pages) {
    // effective_at, posted_at | resource_id, reference, description | environment … expectation_id
    const times = encodeRecords(page.map((j) => [j.effectiveAt, j.postedAt]));
    const texts = encodeRecords(page.map((j) => [j.resourceId, j.reference, j.description]));
    const others = page.filter((j) => !isPlain(j));
    const otherTails = encodeRecords(
      others.map((j) => [
        meta.environment,
        j.receiptSha256,
        j.lateChangeOf,
        j.originalEffectiveAt,
        j.adjusts,
        j.expectationId,
      ]),
    );
    let other = 0;
    let text = '';
    for (let i = 0; i < page.length; i += 1) {
      const journal = page[i]!;
      const head = `${journal.journalId},`;
      const reverses = journal.reverses === null ? '' : journal.reverses;
      const middle = `,${times[i]},${cell(journal.resourceKind)},${texts[i]},${cell(journal.entryType)},${cell(journal.settlementKey)},${reverses},`;
      const tail = `,${isPlain(journal) ? plainTail : otherTails[other++]}\n`;
      for (const line of journal.lines) {
        text += `${head}${line.lineNo}${middle}${cell(line.account)},${line.amount > 0 ? debit : credit},${line.amount},${decimalAmount(line.amount, line.currency)},${cell(line.currency)}${tail}`;
      }
    }
    yield text;
  }
}
