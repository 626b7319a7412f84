import { formatAmount } from '../money/index.ts';
import {
  notAvailable,
  page,
  textCell,
  verdictBadge,
  type DashboardView,
  type PageAnswer,
} from './dashboard-layout.ts';
import { html, SafeHtml } from './html.ts';
import { NOT_AVAILABLE, NOT_AVAILABLE_MESSAGES, type ExportView } from './ops-features.ts';

/** Exports: the closed periods' frozen files and the export folder's daily files. */
export async function exportsPage(view: DashboardView): Promise<PageAnswer> {
  const { deps, base } = view;
  const files = await deps.features.listExports(deps.db, { limit: 500, offset: 0 });
  const body =
    files === NOT_AVAILABLE
      ? html`<section id="exports-list">
          <h2>Exports</h2>
          ${notAvailable(NOT_AVAILABLE_MESSAGES.exports)}
        </section>`
      : html`<section id="closed-periods">
            <h2>Closed periods</h2>
            ${exportTable(
              base,
              files.filter((e) => e.kind === 'closed_period'),
              [
                ['Period', (e) => e.period],
                ['Format', (e) => e.format],
                ['Rows', (e) => e.rows],
                ['Closed at', (e) => e.at],
                ['Forced', (e) => (e.forced ? `yes: ${e.reason ?? ''}` : 'no')],
              ],
              html`No period is closed yet (<code>paysync close --period YYYY-MM</code>).`,
            )}
          </section>
          <section id="exports-list">
            <h2>Daily exports (the export folder's manifest)</h2>
            ${exportTable(
              base,
              files.filter((e) => e.kind === 'daily'),
              [
                ['Day', (e) => e.period],
                ['Format', (e) => e.format],
                ['Rows', (e) => e.rows],
                [
                  'Sums (debits / credits)',
                  (e) =>
                    (e.sums ?? [])
                      .map(
                        (c) =>
                          `${formatAmount(c.debits, c.currency)} / ${formatAmount(c.credits, c.currency)}`,
                      )
                      .join('; '),
                ],
                ['Verdict', (e) => verdictBadge(e.verdict ?? undefined)],
                ['Generated at', (e) => e.at],
              ],
              html`No daily export yet: the scheduled task writes yesterday's at
                <code>PAYSYNC_EXPORT_CRON</code> (02:00 by default).`,
            )}
          </section>`;
  return {
    status: 200,
    html: page({ title: 'Exports', current: '/exports', chrome: view, body }),
  };
}

/** One table of export files: the given columns, then the sha256 and the download link. */
function exportTable(
  base: string,
  files: readonly ExportView[],
  columns: readonly (readonly [string, (e: ExportView) => unknown])[],
  empty: SafeHtml,
): SafeHtml {
  if (files.length === 0) return html`<p>${empty}</p>`;
  return html`<table>
    <tr>
      ${columns.map(([name]) => html`<th class="${name === 'Rows' ? 'num' : ''}">${name}</th>`)}
      <th>sha256</th>
      <th>File</th>
    </tr>
    ${files.map(
      (e) =>
        html`<tr>
          ${columns.map(([name, cell]) => {
            const value = cell(e);
            if (name === 'Rows') return html`<td class="num">${value}</td>`;
            return value instanceof SafeHtml ? html`<td>${value}</td>` : textCell(value);
          })}
          <td><code title="${e.sha256}">${e.sha256.slice(0, 12)}…</code></td>
          <td>
            ${
              e.bytes === null
                ? html`<span class="verdict verdict-breaks">missing</span>`
                : html`<a href="${base}/exports/${encodeURIComponent(e.id)}/download" download
                    >${e.id}</a
                  >`
            }
          </td>
        </tr>`,
    )}
  </table>`;
}
