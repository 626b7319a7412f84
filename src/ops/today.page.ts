import { formatAmount } from '../money/index.ts';
import { dayOf, dayWindow, previousDay, startOfDay } from '../books-calendar/index.ts';
import {
  dayVerdict,
  verdictStorage,
  VERDICT_LOOKBACK_DAYS,
  type DailyReport,
  type DayVerdict,
  type StoredVerdictMark,
  type VerdictStorage,
} from '../reports/index.ts';
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
import {
  publicRecord,
  readOpenDiscrepancies,
  readResources,
  verdictBooksOf,
} from './ops-queries.ts';

/** Whether a day's verdict is stored, or when it will be, in one line. */
function storageLine(storage: VerdictStorage): string {
  const before = (mark: StoredVerdictMark) => `stored ${mark.verdict} at ${mark.computedAt}; `;
  switch (storage.state) {
    case 'stored':
      return `stored at ${storage.computedAt}`;
    case 'kept':
      return `${before(storage.stored)}the verdicts task does not judge a RECONCILED day again`;
    case 'due':
      return `${storage.replaces ? before(storage.replaces) : 'not stored yet: '}the verdicts task stores it at ${storage.at}${storage.snapshotAt ? `, once the balances task has taken the end-of-day snapshot at ${storage.snapshotAt}` : ''}`;
    case 'not_scheduled': {
      const why = {
        verdict_task_off: 'the verdicts task is off (PAYSYNC_VERDICT_CRON)',
        balance_task_off:
          'the balances task, which takes the end-of-day snapshot the verdicts task waits for, is off (PAYSYNC_BALANCE_CRON)',
        older_than_lookback: `the verdicts task judges only the last ${VERDICT_LOOKBACK_DAYS} days`,
        before_first_item:
          'the balances task takes no end-of-day snapshot before the day of the first item, and the verdicts task waits for one',
      }[storage.because];
      return `${storage.replaces ? before(storage.replaces) : 'not stored: '}${why}`;
    }
  }
}

/** Why a day's verdict is what it is, from its report. */
function reasonsOf(report: DailyReport): string {
  const why = [
    ...report.breaks.map((b) => b.line),
    ...report.incomplete,
    ...(report.pending.length > 0 ? [`${report.pending.length} item(s) still pending`] : []),
  ];
  return why.length === 0 ? 'all items final and booked; balances agree' : why.join('; ');
}

/**
 * Today (`/`): the verdicts of yesterday and the day before as `paysync report` computes them now
 * (the same function), whether each is stored or when the verdicts task will store it, when
 * today's will be; today's failed transfers, open breaks and open alerts.
 */
export async function todayPage(view: DashboardView): Promise<PageAnswer> {
  const { deps, ctx, csrf: token, base } = view;
  const now = deps.now();
  const today = dayOf(now, ctx.timeZone);
  const yesterday = previousDay(today);
  const dayBefore = previousDay(yesterday);
  const books = verdictBooksOf(ctx);
  const todayStorage = await verdictStorage(books, ctx.verdictSchedule, today, now);
  const closedDays: { day: string; verdict: DayVerdict }[] = [];
  for (const day of [yesterday, dayBefore]) {
    closedDays.push({ day, verdict: await dayVerdict(books, ctx.verdictSchedule, day, now) });
  }
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
          <th>Stored</th>
        </tr>
        <tr data-day="${today}">
          <td>${today}</td>
          <td><span class="na">not over</span></td>
          ${textCell(`today: the day ends at ${dayWindow(today, ctx.timeZone).to}`)}
          ${textCell(storageLine(todayStorage))}
        </tr>
        ${closedDays.map(
          ({ day, verdict }) =>
            html`<tr data-day="${day}">
              <td>${day}</td>
              <td>${verdictBadge(verdict.report.verdict)}</td>
              ${textCell(reasonsOf(verdict.report))} ${textCell(storageLine(verdict.storage))}
            </tr>`,
        )}
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
