import { SERVICE_ACCOUNTS, serviceAccountTypeOf, type ServiceAccountType } from './accounts.ts';
import type { AccountBalance } from './ledger-reports.ts';

/** One of the service's accounts in one currency: what the service says, what the ledger says. */
export interface ServiceBalancePair {
  readonly accountType: string;
  readonly currency: string;
  /** Minor units; 0 for a ledger account the service did not list. */
  readonly service: number;
  readonly ledger: number;
  /** False for a ledger account the service did not list. */
  readonly listed: boolean;
}

/**
 * Pairs the service's balances with the ledger's `service:*` balances: every listed balance,
 * then every non-zero ledger account the service did not list (it holds none of that money).
 */
export function pairServiceBalances(
  service: readonly { accountType: string; currency: string; amount: number }[],
  ledger: readonly AccountBalance[],
): ServiceBalancePair[] {
  const pairs: ServiceBalancePair[] = service.map((balance) => ({
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
      service: 0,
      ledger: line.balance,
      listed: false,
    });
  }
  return pairs;
}
