/**
 * Beancount wants five capitalised roots (Assets, Liabilities, Equity, Income, Expenses) and
 * capitalised components. The ledger's roots map as below (docs/exports.md lists them); each
 * component gets a capital first letter, and characters beancount refuses become `-`.
 */
const BEANCOUNT_ROOTS: Record<string, string> = {
  service: 'Assets:Service',
  income: 'Income',
  payouts: 'Expenses:Payouts',
  expenses: 'Expenses',
  refunds: 'Expenses:Refunds',
  equity: 'Equity',
  adjustments: 'Equity:Adjustments',
};

function component(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9-]/g, '-');
  const capital = cleaned.charAt(0).toUpperCase() + cleaned.slice(1);
  return /^[A-Z0-9]/.test(capital) ? capital : `X${capital}`;
}

/** `service:transfer-irt` → `Assets:Service:Transfer-irt`, `adjustments:bank` → `Equity:Adjustments:Bank`. */
export function beancountAccount(account: string): string {
  const [root = '', ...rest] = account.split(':');
  const mapped = BEANCOUNT_ROOTS[root] ?? `Equity:${component(root)}`;
  return [mapped, ...rest.map(component)].join(':');
}
