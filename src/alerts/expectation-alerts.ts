import { overdueExpectations, type OverdueExpectation } from '../expectations/index.ts';
import { formatAmount } from '../money/index.ts';
import { liveAlertKeys } from './alert.repository.ts';
import {
  raiseAlert,
  resolveAlertsByKey,
  type AlertDependencies,
  type RaiseAlertInput,
} from './raise-alert.ts';

const KIND = 'expectation_overdue';

/** One live alert per expectation and environment. */
export function expectationOverdueKey(environment: string, expectationId: string): string {
  return `${KIND}:${environment}:${expectationId}`;
}

function expectedText(e: OverdueExpectation): string {
  return e.amount_min === e.amount_max
    ? formatAmount(e.amount_min, e.currency)
    : `${formatAmount(e.amount_min, e.currency)} to ${formatAmount(e.amount_max, e.currency)}`;
}

/** The alert of an overdue expectation: what was expected, by when, and what came of it. */
export function expectationOverdueAlert(
  environment: string,
  e: OverdueExpectation,
): RaiseAlertInput {
  const what = e.direction === 'in' ? 'payment of' : 'payout of';
  const matched =
    e.matched_amount > 0
      ? `Only ${formatAmount(e.matched_amount, e.currency)} was matched.`
      : 'Nothing was matched.';
  return {
    kind: KIND,
    dedupeKey: expectationOverdueKey(environment, e.expectation_id),
    subject: e.expectation_id,
    title: `Expected ${what} ${expectedText(e)} (${e.expectation_id}) is overdue since ${e.window_to}`,
    body: [
      `Expectation ${e.expectation_id}${e.reference ? ` (reference ${e.reference})` : ''}: a ${what} ${expectedText(e)} was expected by ${e.window_to}. ${matched}`,
      `See it with paysync expect show ${e.expectation_id}; once settled outside paysync, paysync expect resolve ${e.expectation_id} --reason "…".`,
    ].join('\n'),
    detail: {
      environment,
      expectationId: e.expectation_id,
      direction: e.direction,
      currency: e.currency,
      amountMin: e.amount_min,
      amountMax: e.amount_max,
      matchedAmount: e.matched_amount,
      windowTo: e.window_to,
      group: e.direction,
    },
    resolvesWhen: 'when the expectation is matched, resolved by hand or cancelled',
  };
}

/**
 * `expectation_overdue` (docs/expectations.md, "Alerts"): one alert per expectation that became
 * overdue, raised through the usual pacing, so a payroll of 300 overdue payouts is one digest;
 * an expectation already alerted is not raised again while its alert is live, and its alert
 * resolves once it is no longer overdue (matched late, resolved by hand, cancelled).
 */
export async function watchOverdueExpectations(
  deps: AlertDependencies,
  environment: string,
): Promise<void> {
  const live = await liveAlertKeys(deps.db, KIND);
  const overdue = await overdueExpectations(deps.db, environment);
  const still = new Set<string>();
  for (const e of overdue) {
    const key = expectationOverdueKey(environment, e.expectation_id);
    still.add(key);
    if (!live.has(key)) await raiseAlert(deps, expectationOverdueAlert(environment, e));
  }
  const prefix = `${KIND}:${environment}:`;
  for (const key of live) {
    if (key.startsWith(prefix) && !still.has(key)) await resolveAlertsByKey(deps, key);
  }
}
