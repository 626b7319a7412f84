/**
 * The chart of accounts. `service:*` are the merchant's accounts held by the payment service;
 * the others are where the money came from or went to.
 */
export const Account = {
  serviceCollection: 'service:collection',
  serviceTransfer: 'service:transfer',
  serviceTransferIrt: 'service:transfer-irt',
  serviceCrossBorder: 'service:cross-border',
  incomePayments: 'income:payments',
  payoutsRecipients: 'payouts:recipients',
  expensesTransferFees: 'expenses:transfer-fees',
  refundsCustomers: 'refunds:customers',
  equityOpeningBalances: 'equity:opening-balances',
  adjustmentsManual: 'adjustments:manual',
} as const;

/**
 * A booked account: one of the chart above, or an `adjustments:<name>` account the user names
 * when booking money the service moved without a documented item (`paysync adjust`).
 */
export type AccountName = (typeof Account)[keyof typeof Account] | `adjustments:${string}`;

/** The service's account types and the ledger account each is mirrored in. */
export const SERVICE_ACCOUNTS = {
  collection: Account.serviceCollection,
  transfer: Account.serviceTransfer,
  'transfer-irt': Account.serviceTransferIrt,
  'cross-border': Account.serviceCrossBorder,
} as const;

export type ServiceAccountType = keyof typeof SERVICE_ACCOUNTS;
export type ServiceAccountName = (typeof SERVICE_ACCOUNTS)[ServiceAccountType];

/** `transfer` for `service:transfer`; undefined for an account the service does not hold. */
export function serviceAccountTypeOf(account: string): ServiceAccountType | undefined {
  const entry = Object.entries(SERVICE_ACCOUNTS).find(([, name]) => name === account);
  return entry?.[0] as ServiceAccountType | undefined;
}

/**
 * Checks a user-given adjustment counter-account: `adjustments:` followed by lower-case words.
 * Returns a reason when it is not acceptable.
 */
export function adjustmentAccountProblem(account: string): string | undefined {
  return /^adjustments:[a-z0-9][a-z0-9._-]*(:[a-z0-9][a-z0-9._-]*)*$/.test(account)
    ? undefined
    : 'must be adjustments:<name> in lower case (letters, digits, ".", "_", "-"), e.g. adjustments:bank-top-ups';
}

export const ACCOUNT_NAMES: readonly AccountName[] = Object.values(Account);
