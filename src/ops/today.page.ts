import { formatAmount } from '../money/index.ts';
import { dayOf, previousDay, startOfDay } from '../books-calendar/index.ts';
import { storedVerdicts } from '../reports/index.ts';
import {
  clipped,
  notAvailable,
  page,
  textCell,
  verdictBadge,
  type DashboardView,
  type PageAnswer,
} from './dashboard-layout.ts';
import { html } from './html.ts';
import { NOT_AVAILABLE, NOT_AVAILABLE_MESSAGES } from './ops-features.ts';
import { publicRecord, readOpenDiscrepancies, readResources } from './ops-queries.ts';

/** Today (`/`): the last two verdicts, today's failed transfers, open breaks and open alerts. */
export async function todayPage(view: DashboardView): Promise<PageAnswer> {
  const { deps, ctx, csrf: token, base } = view;
  const today = dayOf(deps.now(), ctx.timeZone);
  const yesterday = previousDay(today);
  const dayBefore = previousDay(yesterday);
  const verdicts = await storedVerdicts(deps.db, ctx.environment, {
    since: dayBefore,
    limit: 5,
  });
  const verdictOf = (day: string) => verdicts.find((v) => v.day === day);
  const since = startOfDay(today, ctx.timeZone).toISOString();
  const failed = await readResources(ctx, 'transfer', { status: 'failed', since }, 200);
  const breaks = await readOpenDiscrepancies(ctx, 100);
  const listed = await deps.features.listAlerts(deps.db, { limit: 50, offset: 0 });
  // The panel is for what still needs someone: resolved alerts stay in the API's list.
  const alerts = listed === NOT_AVAILABLE ? listed : listed.filter((a) => a.state !== 'resolved');
  const body = html` <section id="verdicts">
      <h2>Verdicts</h2>
      <table>
        <tr>
          <th>Day</th>
          <th>Verdict</th>
          <th>Why</th>
        </tr>
        ${[yesterday, dayBefore].map((day) => {
          const stored = verdictOf(day);
          const why = stored
            ? [
                ...stored.report.breaks.map((b) => b.line),
                ...stored.report.incomplete,
                ...(stored.report.pending.length > 0
                  ? [`${stored.report.pending.length} item(s) still pending`]
                  : []),
              ]
            : ['the verdict is computed after the day ends (paysync report)'];
          return html`<tr data-day="${day}">
            <td>${day}</td>
            <td>${verdictBadge(stored?.verdict)}</td>
            ${textCell(why.length === 0 ? 'all items final and booked; balances agree' : why.join('; '))}
          </tr>`;
        })}
      </table>
    </section>
    <section id="failed-transfers">
      <h2>Failed transfers today (${failed.length})</h2>
      ${
        failed.length === 0
          ? html`<p class="muted">None.</p>`
          : html`<table>
              <tr>
                <th>Transfer</th>
                <th>Description</th>
                <th class="num">Amount</th>
                <th>Reason</th>
                <th>Updated</th>
              </tr>
              ${failed.map((t) => {
                const r = publicRecord(t);
                return html`<tr data-id="${t.id}">
                  <td><a href="${base}/items/${encodeURIComponent(t.id)}">${t.id}</a></td>
                  ${textCell(t.kind === 'transfer' ? t.description : '')}
                  <td class="num">${formatAmount(t.amount, t.currency)}</td>
                  ${textCell(t.failureMessage ?? t.failureCode ?? r.upstreamStatus)}
                  <td>${t.updatedAt}</td>
                </tr>`;
              })}
            </table>`
      }
    </section>
    <section id="breaks">
      <h2>Open breaks (${breaks.length})</h2>
      ${
        breaks.length === 0
          ? html`<p class="muted">None.</p>`
          : html`<table>
              <tr>
                <th>Break</th>
                <th>Suggested action</th>
                <th></th>
              </tr>
              ${breaks.map(
                (d) =>
                  html`<tr data-id="${d.id}">
                    ${textCell(d.line, d.resourceId ? html`<a href="${base}/items/${encodeURIComponent(d.resourceId)}">${clipped(d.line)}</a>` : undefined)}
                    ${textCell(d.action)}
                    <td>
                      <form method="post" action="${base}/actions/discrepancies/${d.id}/resolve">
                        <input type="hidden" name="csrf" value="${token}" /><button>Resolve</button>
                      </form>
                    </td>
                  </tr>`,
              )}
            </table>`
      }
    </section>
    <section id="alerts">
      <h2>Open alerts</h2>
      ${
        alerts === NOT_AVAILABLE
          ? notAvailable(NOT_AVAILABLE_MESSAGES.alerts)
          : alerts.length === 0
            ? html`<p class="muted">None.</p>`
            : html`<table>
                <tr>
                  <th>Alert</th>
                  <th>State</th>
                  <th>Since</th>
                  <th></th>
                </tr>
                ${alerts.map(
                  (a) =>
                    html`<tr data-id="${a.id}">
                      ${textCell(a.summary)}
                      <td>${a.state}</td>
                      <td>${a.createdAt}</td>
                      <td>
                        ${
                          a.state === 'open'
                            ? html`<form method="post" action="${base}/actions/alerts/${a.id}/ack">
                                <input type="hidden" name="csrf" value="${token}" /><button>
                                  Ack
                                </button>
                              </form>`
                            : ''
                        }
                      </td>
                    </tr>`,
                )}
              </table>`
      }
    </section>`;
  return {
    status: 200,
    html: page({ title: `Today (${today})`, current: '/', chrome: view, body }),
  };
}
