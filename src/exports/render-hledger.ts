import { booksDayCache } from './books-day-cache.ts';
import { currencyExponent, decimalAmount } from '../money/index.ts';
import type { ExportJournal } from './export-journal.ts';
import { lateChangeText, type AccountAmount, type LedgerContext } from './ledger-context.ts';
import type { RenderMeta } from './render-meta.ts';

/** hledger reads `;` as a comment and a line break as the end of a description. */
function oneLine(text: string): string {
  return text.replace(/[\r\n;]+/g, ' ').trim();
}

function amount(minor: number, currency: string): string {
  return `${decimalAmount(minor, currency)} ${currency}`;
}

function posting(account: string, text: string): string {
  return `    ${account}  ${text}\n`;
}

function assertions(day: string, balances: readonly AccountAmount[]): string {
  let text = `${day} end-of-day balances reported by the service  ; paysync:balance-assertion\n`;
  for (const b of balances) {
    text += posting(b.account, `0 ${b.currency} = ${amount(b.amount, b.currency)}`);
  }
  return `${text}\n`;
}

/**
 * An hledger 1.25 journal that `hledger check --strict` accepts: commodity and account
 * directives first, the balances carried into the window, one transaction per journal dated in
 * the books' zone, and after each day a transaction of balance assertions from the service's
 * end-of-day snapshots, so `hledger check` proves the books match the service.
 */
export async function* renderHledger(
  pages: AsyncIterable<readonly ExportJournal[]>,
  context: LedgerContext,
  meta: RenderMeta,
): AsyncGenerator<string> {
  let head = `; paysync export: ${meta.environment}, effective [${meta.window.from}, ${meta.window.to}), books zone ${meta.timeZone}\n\n`;
  for (const currency of context.currencies) {
    const exponent = currencyExponent(currency);
    // hledger 1.25 insists on a decimal mark, even for a currency without decimals.
    head += `commodity 1000.${'0'.repeat(exponent)} ${currency}\n`;
  }
  if (context.currencies.length > 0) head += '\n';
  for (const account of context.accounts) head += `account ${account}\n`;
  if (context.accounts.length > 0) head += '\n';
  if (context.carriedForward.length > 0 && context.days.length > 0) {
    head += `${context.days[0]} balances carried forward from before ${meta.window.from}  ; paysync:carried-forward\n`;
    for (const b of context.carriedForward)
      head += posting(b.account, amount(b.amount, b.currency));
    head += '\n';
  }
  if (context.lateChanges.length > 0) {
    head +=
      '; late changes to closed periods (booked here, at the start of the first open period):\n';
    for (const c of context.lateChanges) head += `;   ${lateChangeText(c)}\n`;
    head += '\n';
  }
  yield head;
  const dayOfInstant = booksDayCache(meta.timeZone);

  let dayIndex = 0;
  const closeDaysBefore = function* (day: string | undefined): Generator<string> {
    while (dayIndex < context.days.length && (day === undefined || context.days[dayIndex]! < day)) {
      const done = context.days[dayIndex]!;
      const balances = context.endOfDay.get(done);
      if (balances && balances.length > 0) yield assertions(done, balances);
      dayIndex += 1;
    }
  };

  // One chunk per page: an async generator's yield per journal would cost more than the text.
  for await (const page of pages) {
    let chunk = '';
    for (const journal of page) {
      const day = dayOfInstant(journal.effectiveAt);
      for (const assertion of closeDaysBefore(day)) chunk += assertion;
      const tags = [`resource:${journal.resourceId}`, `journal:${journal.journalId}`];
      if (journal.reference)
        tags.push(`reference:${oneLine(journal.reference).replace(/,/g, ' ')}`);
      if (journal.reverses !== null) tags.push(`reverses:${journal.reverses}`);
      if (journal.receiptSha256) tags.push(`receipt:${journal.receiptSha256}`);
      if (journal.lateChangeOf) tags.push(`late-change:${journal.lateChangeOf}`);
      if (journal.adjusts !== null) tags.push(`adjusts:${journal.adjusts}`);
      // A tag's value ends at a comma; oneLine turns the `;` between several ids into a space.
      if (journal.expectationId)
        tags.push(`expectation:${oneLine(journal.expectationId).replace(/,/g, ' ')}`);
      let text = `${day} (${oneLine(journal.resourceId)}) ${oneLine(journal.description)}  ; ${tags.join(', ')}\n`;
      text += `    ; effective:${journal.effectiveAt}, posted:${journal.postedAt}, kind:${journal.resourceKind}, entry:${journal.entryType}, settlement:${journal.settlementKey}\n`;
      for (const line of journal.lines)
        text += posting(line.account, amount(line.amount, line.currency));
      chunk += `${text}\n`;
    }
    yield chunk;
  }
  yield* closeDaysBefore(undefined);
}
