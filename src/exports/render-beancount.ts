import { nextDay } from '../reports/index.ts';
import { booksDayCache } from './books-day-cache.ts';
import { beancountAccount } from './account-names.ts';
import { decimalAmount } from './currency-exponent.ts';
import type { ExportLine } from './export-line.ts';
import { groupJournals } from './group-journals.ts';
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
  lines: AsyncIterable<ExportLine>,
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

  for await (const journal of groupJournals(lines)) {
    const first = journal[0]!;
    const day = dayOfInstant(first.effectiveAt);
    let text = `${day} * ${quoted(first.description)}\n`;
    text += `  resource: ${quoted(first.resourceId)}\n`;
    text += `  resource-kind: ${quoted(first.resourceKind)}\n`;
    text += `  journal: ${quoted(String(first.journalId))}\n`;
    text += `  entry: ${quoted(first.entryType)}\n`;
    text += `  settlement-key: ${quoted(first.settlementKey)}\n`;
    text += `  effective-at: ${quoted(first.effectiveAt)}\n`;
    text += `  posted-at: ${quoted(first.postedAt)}\n`;
    if (first.reference) text += `  reference: ${quoted(first.reference)}\n`;
    if (first.reverses !== null) text += `  reverses: ${quoted(String(first.reverses))}\n`;
    if (first.receiptSha256) text += `  receipt: ${quoted(first.receiptSha256)}\n`;
    if (first.lateChangeOf) text += `  late-change: ${quoted(first.lateChangeOf)}\n`;
    if (first.adjusts !== null) text += `  adjusts: ${quoted(String(first.adjusts))}\n`;
    for (const line of journal) text += posting(line.account, line.amount, line.currency);
    yield `${text}\n`;
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
