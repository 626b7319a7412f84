import { formatAmount } from '../money/index.ts';
import { page, verdictBadge, type DashboardView, type PageAnswer } from './dashboard-layout.ts';
import { html, jsonForScript } from './html.ts';
import { readBalances, readSnapshotHistory } from './ops-queries.ts';

/** The chart's window: a year of hourly snapshots is too many points, and old ones are not news. */
const CHART_DAYS = 30;

/** Balances: the service against the ledger per account, and the snapshots over time. */
export async function balancesPage(view: DashboardView): Promise<PageAnswer> {
  const { ctx, base } = view;
  const balances = await readBalances(ctx);
  const since = new Date(ctx.now().getTime() - CHART_DAYS * 86_400_000).toISOString();
  const history = await readSnapshotHistory(ctx, { since }, 10_000);
  const names = [...new Set(history.map((s) => `${s.accountType} ${s.currency}`))].sort();
  const times = [...new Set(history.map((s) => s.asOf))].sort();
  const amounts = new Map<string, number>(
    history.map((s) => [`${s.asOf} ${s.accountType} ${s.currency}`, s.amount] as const),
  );
  const values = names.map((name) => times.map((t) => amounts.get(`${t} ${name}`) ?? null));
  const chart = { series: names, times: times.map((t) => Date.parse(t) / 1000), values };
  const body = html` <section id="comparison">
      <h2>Service against ledger</h2>
      ${
        balances.data.length === 0
          ? html`<p class="muted">No snapshot yet.</p>`
          : html`<table>
              <tr>
                <th>Account</th>
                <th>Currency</th>
                <th class="num">Service</th>
                <th class="num">Ledger</th>
                <th class="num">Difference</th>
                <th>Verdict</th>
                <th>As of</th>
              </tr>
              ${balances.data.map(
                (b) =>
                  html`<tr>
                    <td>${b.accountType}</td>
                    <td>${b.currency}</td>
                    <td class="num">${formatAmount(b.service, b.currency)}</td>
                    <td class="num">${formatAmount(b.ledger, b.currency)}</td>
                    <td class="num">${formatAmount(b.difference, b.currency)}</td>
                    <td>${verdictBadge(b.verdict)}</td>
                    <td>${b.asOf}</td>
                  </tr>`,
              )}
            </table>`
      }
    </section>
    <section id="history-chart">
      <h2>Balance over the last ${CHART_DAYS} days (${names.length} series)</h2>
      <div id="balance-chart"></div>
      <script type="application/json" id="balance-data">
        ${jsonForScript(chart)}
      </script>
    </section>`;
  return {
    status: 200,
    html: page({
      title: 'Balances',
      current: '/balances',
      chrome: view,
      body,
      head: html`<link rel="stylesheet" href="${base}/assets/uPlot.min.css" />`,
      scripts: [`${base}/assets/uPlot.iife.min.js`, `${base}/assets/balance-chart.js`],
    }),
  };
}
