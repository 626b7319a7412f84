import { nextDay } from '../books-calendar/index.ts';
import { booksDayCache } from './books-day-cache.ts';
import { beancountAccount } from './account-names.ts';
import { decimalAmount } from '../money/index.ts';
import type { ExportJournal } from './export-journal.ts';
import { lateChangeText, type LedgerContext } from './ledger-context.ts';
import type { RenderMeta } from './render-meta.ts';

function quoted(text: string): string {
  return `"${text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/[\r\n]+/g, ' ')}"`;
}

function posting(account: string, minor: number, currency: string): string {
  return `  ${beancountAccount(account)}  ${decimalAmount(minor, currency)} ${currency}\n`;
}

/**
 * A beancount file that `bean-check` accepts: commodities and `open` directives dated the
 * window's first day, the balances carried into the window, one transaction per journal with
 * its metadata, and `balance` directives from the end-of-day snapshots. Beancount checks a
 * `balance` at the start of its date, so day D's end-of-day balance is dated D + 1.
 */
export async function* renderBeancount(
  pages: AsyncIterable<readonly ExportJournal[]>,
  context: LedgerContext,
  meta: RenderMeta,
): AsyncGenerator<string> {
  let head = `; paysync export: ${meta.environment}, effective [${meta.window.from}, ${meta.window.to}), books zone ${meta.timeZone}\n\n`;
  const opened = context.days[0];
  if (opened !== undefined) {
    for (const currency of context.currencies) head += `${opened} commodity ${currency}\n`;
    if (context.currencies.length > 0) head += '\n';
    for (const account of context.accounts) {
      head += `${opened} open ${beancountAccount(account)}\n`;
    }
    if (context.accounts.length > 0) head += '\n';
    if (context.carriedForward.length > 0) {
      head += `${opened} * ${quoted(`balances carried forward from before ${meta.window.from}`)}\n`;
      for (const b of context.carriedForward) head += posting(b.account, b.amount, b.currency);
      head += '\n';
    }
  }
  if (context.lateChanges.length > 0) {
    head +=
      '; late changes to closed periods (booked here, at the start of the first open period):\n';
    for (const c of context.lateChanges) head += `;   ${lateChangeText(c)}\n`;
    head += '\n';
  }
  yield head;
  const dayOfInstant = booksDayCache(meta.timeZone);

  // One chunk per page: an async generator's yield per journal would cost more than the text.
  for await (const page of pages) {
    let chunk = '';
    for (const journal of page) {
      const day = dayOfInstant(journal.effectiveAt);
      let text = `${day} * ${quoted(journal.description)}\n`;
      text += `  resource: ${quoted(journal.resourceId)}\n`;
      text += `  resource-kind: ${quoted(journal.resourceKind)}\n`;
      text += `  journal: ${quoted(String(journal.journalId))}\n`;
      text += `  entry: ${quoted(journal.entryType)}\n`;
      text += `  settlement-key: ${quoted(journal.settlementKey)}\n`;
      text += `  effective-at: ${quoted(journal.effectiveAt)}\n`;
      text += `  posted-at: ${quoted(journal.postedAt)}\n`;
      if (journal.reference) text += `  reference: ${quoted(journal.reference)}\n`;
      if (journal.reverses !== null) text += `  reverses: ${quoted(String(journal.reverses))}\n`;
      if (journal.receiptSha256) text += `  receipt: ${quoted(journal.receiptSha256)}\n`;
      if (journal.lateChangeOf) text += `  late-change: ${quoted(journal.lateChangeOf)}\n`;
      if (journal.adjusts !== null) text += `  adjusts: ${quoted(String(journal.adjusts))}\n`;
      if (journal.expectationId) text += `  expectation-id: ${quoted(journal.expectationId)}\n`;
      for (const line of journal.lines) text += posting(line.account, line.amount, line.currency);
      chunk += `${text}\n`;
    }
    yield chunk;
  }

  let tail = '';
  for (const day of context.days) {
    for (const b of context.endOfDay.get(day) ?? []) {
      tail += `${nextDay(day)} balance ${beancountAccount(b.account)}  ${decimalAmount(b.amount, b.currency)} ${b.currency}\n`;
    }
  }
  if (tail)
    yield `; end-of-day balances reported by the service, checked at the start of the next day\n${tail}`;
}
