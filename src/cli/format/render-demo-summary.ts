import type { AccountBalance } from '../../ledger/index.ts';
import type { DemoSummary } from '../../demo/index.ts';
import { formatAmount } from './format-amount.ts';
import { renderTable } from './render-table.ts';

const KIND_LABELS: Record<string, string> = {
  payment_intent: 'payment intents',
  transfer: 'transfers',
  refund: 'refunds',
  payment_refund: 'payment refunds',
};

/** `1:05` for 65 seconds. */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const mmss = `${minutes % 60}:${String(seconds % 60).padStart(2, '0')}`;
  return hours > 0 ? `${hours}:${mmss.padStart(5, '0')}` : mmss;
}

function mirrorTable(summary: DemoSummary): string {
  const kinds = ['payment_intent', 'transfer', 'refund', 'payment_refund'].map((kind) => {
    const counts = summary.statusCounts.filter((c) => c.kind === kind);
    return {
      label: KIND_LABELS[kind]!,
      total: counts.reduce((sum, c) => sum + c.count, 0),
      statuses: counts.length === 0 ? '-' : counts.map((c) => `${c.status} ${c.count}`).join(' · '),
    };
  });
  return renderTable(
    [
      { header: 'MIRROR', value: (k) => k.label },
      { header: 'TOTAL', value: (k) => String(k.total), align: 'right' },
      { header: 'BY STATUS', value: (k) => k.statuses },
    ],
    kinds,
  );
}

function balancesTable(balances: readonly AccountBalance[]): string {
  if (balances.length === 0) return 'LEDGER BALANCES: none yet';
  return renderTable<AccountBalance>(
    [
      { header: 'ACCOUNT', value: (b) => b.account },
      { header: 'CUR', value: (b) => b.currency },
      { header: 'BALANCE (minor units, + is Dr)', value: (b) => String(b.balance), align: 'right' },
      {
        header: 'BALANCE',
        value: (b) =>
          b.balance === 0
            ? '0'
            : `${b.balance > 0 ? 'Dr' : 'Cr'} ${formatAmount(Math.abs(b.balance), b.currency)}`,
        align: 'right',
      },
    ],
    balances,
  );
}

/** The demo's screen: what was generated, the mirror, the books, discrepancies and webhooks. */
export function renderDemoSummary(
  summary: DemoSummary,
  where: {
    simUrl: string;
    webhookUrl: string;
    databaseUrl: string;
    queuePrefix: string;
    state: string;
  },
): string {
  const { generated, webhooks } = summary;
  const balanced =
    summary.currencyTotals.every((t) => t.total === 0) && summary.unbalancedJournals === 0;
  const totals = summary.currencyTotals.map((t) => `${t.currency} ${t.total}`).join(', ');
  const books =
    summary.journals === 0
      ? 'Books: nothing booked yet (items settle after a few seconds)'
      : balanced
        ? `Books balance: yes, each currency sums to zero over ${summary.journals} journals (${totals})`
        : `Books balance: NO (${totals}); ${summary.unbalancedJournals} of ${summary.journals} journals unbalanced: see \`paysync doctor\``;
  return [
    `paysync demo · ${formatElapsed(summary.elapsedMs)} · ${where.state}`,
    `  service (simulator) ${where.simUrl} · webhooks to ${where.webhookUrl}`,
    `  books ${where.databaseUrl} · queues ${where.queuePrefix}:* in Redis`,
    '',
    `Generated: ${generated.intents} payments · ${generated.transfers} transfers (1 in 5 to a failing sandbox recipient) · ${generated.refunds} transfer refunds · ${generated.paymentRefunds} payment refunds`,
    '',
    mirrorTable(summary),
    '',
    balancesTable(summary.balances),
    books,
    `Discrepancies open: ${summary.openDiscrepancies}`,
    `Webhooks: ${webhooks.delivered} delivered by the service · ${webhooks.received} received · ${webhooks.processed} processed · ${webhooks.open} in progress · ${webhooks.unclassified} unclassified · ${webhooks.failed} failed`,
  ].join('\n');
}
