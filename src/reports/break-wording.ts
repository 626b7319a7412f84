import type { BreakView } from '../expectations/index.ts';
import type { DiscrepancySummary } from '../ledger/index.ts';

/** One line a finance person can act on: what broke, and what to do. */
export interface BreakLine {
  readonly kind: string;
  readonly subject: string;
  readonly line: string;
  readonly action: string;
}

function money(amount: unknown, currency: unknown): string {
  return typeof amount === 'number' ? `${amount} ${String(currency ?? '')}`.trim() : '?';
}

function subjectOf(d: DiscrepancySummary): string {
  return d.resourceId ?? (d.resourceKind ? d.resourceKind : `discrepancy ${d.id}`);
}

type Wording = (d: DiscrepancySummary, detail: Record<string, unknown>) => [string, string];

/** Every discrepancy kind paysync records, with its wording. Unknown kinds get a generic line. */
export const BREAK_WORDING: Readonly<Record<string, Wording>> = {
  status_regression: (d, x) => [
    `${subjectOf(d)} went back from ${String(x.held ?? '?')} to ${String(x.upstream ?? '?')} at the service; the ledger kept ${String(x.held ?? 'its status')}`,
    `ask the service which status is true (paysync show ${subjectOf(d)} has both); nothing was booked twice`,
  ],
  settlement_reversed: (d) => [
    `${subjectOf(d)} failed after it was booked as successful: a reversal was booked`,
    `confirm with the service and notify the recipient or customer (paysync show ${subjectOf(d)} has the reversal)`,
  ],
  terminal_status_changed: (d, x) => [
    `${subjectOf(d)} changed from one final status to another (${String(x.from ?? '?')} → ${String(x.to ?? '?')})`,
    `confirm the final status with the service; check whether money moved back with paysync show ${subjectOf(d)}, and book it with paysync adjust if it did`,
  ],
  amount_changed: (d) => [
    `${subjectOf(d)} changed amount or fees at the service after it was booked; the booked lines were kept`,
    'ask the service why; book a correction with paysync adjust if money really moved',
  ],
  same_version_conflict: (d) => [
    `${subjectOf(d)} was sent twice with the same version but different content`,
    `report it to the service (paysync show ${subjectOf(d)} has both versions); the first version is kept`,
  ],
  unknown_upstream_resource: (d) => [
    `${subjectOf(d)} was named in a webhook but the service does not know it`,
    `check the webhook sender and the environment (live or sandbox); once resolved, replay the event with paysync replay ${d.inboxId ?? '<inbox id>'}`,
  ],
  contract_error: (d, x) => [
    `the service answered ${String(x.operation ?? 'a request')} for ${subjectOf(d)} in a form paysync cannot read${typeof (x.problem ?? x.message) === 'string' ? `: ${String(x.problem ?? x.message)}` : ''}`,
    `the raw answer is kept (paysync show ${subjectOf(d)}); report it to the service or upgrade paysync`,
  ],
  balance_drift: (d, x) => [
    `${String(x.account ?? subjectOf(d))} differs from the service by ${money(x.amount, x.currency)} that no item explains (as of ${String(x.asOf ?? '?')})`,
    'find the movement with the service (a top-up, a transfer between accounts, a correction) and book it with paysync adjust',
  ],
  stuck: (d, x) => [
    `${subjectOf(d)} has been ${String(x.status ?? x.lastStatus ?? 'pending')} for ${String(x.ageHours ?? x.age ?? '?')}${typeof x.ageHours === 'number' ? ' h' : ''}, past its SLA`,
    `ask the service about it (paysync show ${subjectOf(d)}); paysync keeps polling it daily`,
  ],
  receipt_unavailable: (d) => [
    `the receipt of ${subjectOf(d)} could not be fetched`,
    'fetch it later with paysync receipts backfill, or ask the service for it',
  ],
};

/** The one-line explanation and suggested action of a discrepancy. */
export function describeBreak(discrepancy: DiscrepancySummary): BreakLine {
  const wording = BREAK_WORDING[discrepancy.kind];
  const detail = discrepancy.detail as Record<string, unknown>;
  const [line, action] = wording
    ? wording(discrepancy, detail)
    : [
        `${discrepancy.kind.replaceAll('_', ' ')} on ${subjectOf(discrepancy)}`,
        `inspect it with paysync show ${subjectOf(discrepancy)}`,
      ];
  return { kind: discrepancy.kind, subject: subjectOf(discrepancy), line, action };
}

/**
 * The line of an open expectation break (docs/expectations.md, "In the verdict"): kind
 * `expectation_<kind>`, the merchant's expectation id (or the item, for `unexpected`), and the
 * explanation and suggested action stored with the break, which already name the ids and the
 * amounts with their currency.
 */
export function describeExpectationBreak(b: BreakView): BreakLine {
  const subject = b.expectation_id ?? b.item_id ?? `expectation break ${b.id}`;
  const sentence = (text: string) => text.trim().replace(/\.$/, '');
  const lower = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);
  return {
    kind: `expectation_${b.kind}`,
    subject,
    line: `expectation break ${b.kind.replaceAll('_', ' ')}: ${lower(sentence(b.explanation))}`,
    action: `${lower(sentence(b.suggested_action))}; or, once settled outside paysync, paysync expect resolve --break-id ${b.id} --reason …`,
  };
}
