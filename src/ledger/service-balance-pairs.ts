import { SERVICE_ACCOUNTS, serviceAccountTypeOf, type ServiceAccountType } from './accounts.ts';
import type { AccountBalance } from './ledger-reports.ts';

/**
 * One of the service's accounts in one currency: what the service says, what the ledger says.
 * An account the service did not list has no service balance (`null`): its balance there is
 * unknown, never 0, so it is not compared.
 */
export type ServiceBalancePair =
  | {
      readonly accountType: string;
      readonly currency: string;
      /** Minor units. */
      readonly service: number;
      readonly ledger: number;
      readonly listed: true;
    }
  | {
      readonly accountType: string;
      readonly currency: string;
      /** The service did not list it: unknown, not 0. */
      readonly service: null;
      readonly ledger: number;
      readonly listed: false;
    };

/**
 * Pairs the service's balances with the ledger's `service:*` balances: every listed balance,
 * then every non-zero ledger account the service did not list, with no service balance (the
 * answer says nothing about it; reading it as 0 would report the ledger's whole balance as
 * drift).
 */
export function pairServiceBalances(
  service: readonly { accountType: string; currency: string; amount: number }[],
  ledger: readonly AccountBalance[],
): ServiceBalancePair[] {
  const pairs: ServiceBalancePair[] = service.map((balance): ServiceBalancePair => ({
    accountType: balance.accountType,
    currency: balance.currency,
    service: balance.amount,
    ledger:
      ledger.find(
        (l) =>
          l.account === SERVICE_ACCOUNTS[balance.accountType as ServiceAccountType] &&
          l.currency === balance.currency,
      )?.balance ?? 0,
    listed: true,
  }));
  for (const line of ledger) {
    const accountType = serviceAccountTypeOf(line.account);
    if (!accountType || line.balance === 0) continue;
    if (service.some((b) => b.accountType === accountType && b.currency === line.currency))
      continue;
    pairs.push({
      accountType,
      currency: line.currency,
      service: null,
      ledger: line.balance,
      listed: false,
    });
  }
  return pairs;
}
