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
} as const;

export type AccountName = (typeof Account)[keyof typeof Account];

export const ACCOUNT_NAMES: readonly AccountName[] = Object.values(Account);
