import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { inboxCountSince } from '../inbox/index.ts';
import { resolveDiscrepancy } from '../ledger/index.ts';
import { formatAmount } from '../money/index.ts';
import { webhookOutcomes } from '../receiver/index.ts';
import { dayOf, previousDay, startOfDay } from '../books-calendar/index.ts';
import { storedVerdicts } from '../reports/index.ts';
import { replayInboxEvents } from '../replay/index.ts';
import { cookieValue, opsRefusals, SESSION_COOKIE, type AdminTokens } from './ops-auth.ts';
import { CsrfTokens } from './csrf-token.ts';
import { notAvailable, page, verdictBadge } from './dashboard-layout.ts';
import { html, jsonForScript, type SafeHtml } from './html.ts';
import type { ResolvedOpsDependencies } from './ops-dependencies.ts';
import {
  publicRecord,
  readBalances,
  readItem,
  readOpenDiscrepancies,
  readResources,
  readSnapshotHistory,
  type OpsReadContext,
} from './ops-queries.ts';
import { exportContentType } from './export-content-type.ts';
import { NOT_AVAILABLE, NOT_AVAILABLE_MESSAGES, type ExportView } from './pending-features.ts';
import { serveReceiptHtml } from './serve-receipt.ts';

const here = dirname(fileURLToPath(import.meta.url));
const uplotDist = join(
  dirname(createRequire(import.meta.url).resolve('uplot/package.json')),
  'dist',
);

/** No inline script may run on a dashboard page: escaping has a second line behind it. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

interface Session {
  readonly session: string;
  readonly csrf: string;
}

function sessionOf(response: Response): Session {
  return response.locals.opsSession as Session;
}

/** The dashboard pages, login, the POST actions and the local assets. */
export function createDashboardRouter(
  deps: ResolvedOpsDependencies,
  ctx: OpsReadContext,
  tokens: AdminTokens,
): { router: Router; requireSession: (surface: string) => express.RequestHandler } {
  const router = Router();
  const csrf = new CsrfTokens(randomBytes(32));
  const cookieFlags = `HttpOnly; SameSite=Strict; Path=/${deps.secureCookie ? '; Secure' : ''}`;

  const send = (response: Response, status: number, body: string) => {
    response.setHeader('Content-Security-Policy', PAGE_CSP);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('Referrer-Policy', 'no-referrer');
    response.status(status).type('text/html; charset=utf-8').send(body);
  };
  const loginPage = (message?: string) =>
    page({
      title: 'Log in',
      body: html`<section>
        <form method="post" action="/login">
          <p>
            Paste the admin token (<code>PAYSYNC_ADMIN_TOKEN</code>) once; the browser keeps a
            session cookie.
          </p>
          ${message ? html`<p class="verdict verdict-breaks">${message}</p>` : ''}
          <label
            >Token
            <input type="password" name="token" autocomplete="current-password" required autofocus
          /></label>
          <button type="submit">Log in</button>
        </form>
      </section>`,
    });

  /** Cookie session (or a bearer token, for scripts) or 401 with the login form. */
  const requireSession =
    (surface: string) => (request: Request, response: Response, next: NextFunction) => {
      const cookie = cookieValue(request, SESSION_COOKIE);
      if (tokens.acceptsSession(cookie)) {
        response.locals.opsSession = { session: cookie!, csrf: csrf.tokenFor(cookie!) };
        return next();
      }
      opsRefusals.inc({ surface, reason: cookie ? 'wrong' : 'missing' });
      send(response, 401, loginPage());
    };
  /** POST actions: a session and this session's CSRF token in the form. */
  const requireCsrf = (request: Request, response: Response, next: NextFunction) => {
    const body = request.body as Record<string, unknown> | undefined;
    if (csrf.verify(sessionOf(response).session, body?.csrf)) return next();
    opsRefusals.inc({ surface: 'dashboard', reason: 'csrf' });
    send(
      response,
      403,
      page({
        title: 'Refused',
        body: html`<section>
          <p>
            This form is stale or did not come from the dashboard. Reload the page and try again.
          </p>
        </section>`,
      }),
    );
  };
  const form = express.urlencoded({ extended: false, limit: '4kb' });
  const wrap =
    (handler: (request: Request, response: Response) => Promise<void>) =>
    async (request: Request, response: Response, next: NextFunction) => {
      try {
        await handler(request, response);
      } catch (error) {
        next(error);
      }
    };

  router.get('/assets/uPlot.iife.min.js', (_request, response) =>
    response.sendFile(join(uplotDist, 'uPlot.iife.min.js')),
  );
  router.get('/assets/uPlot.min.css', (_request, response) =>
    response.sendFile(join(uplotDist, 'uPlot.min.css')),
  );
  router.get('/assets/balance-chart.js', (_request, response) =>
    response.sendFile(join(here, 'balance-chart.js')),
  );

  router.get('/login', (_request, response) => send(response, 200, loginPage()));
  router.post('/login', form, (request, response) => {
    const token = (request.body as Record<string, unknown> | undefined)?.token;
    if (typeof token !== 'string' || !tokens.accepts(token.trim())) {
      opsRefusals.inc({
        surface: 'dashboard',
        reason: typeof token === 'string' && token ? 'wrong' : 'missing',
      });
      return send(response, 401, loginPage('Not accepted.'));
    }
    response.setHeader(
      'Set-Cookie',
      `${SESSION_COOKIE}=${tokens.sessionFor(token.trim())}; ${cookieFlags}`,
    );
    response.redirect(303, '/');
  });

  const authed = Router();
  authed.use(requireSession('dashboard'));
  authed.post('/logout', form, requireCsrf, (_request, response) => {
    response.setHeader('Set-Cookie', `${SESSION_COOKIE}=; ${cookieFlags}; Max-Age=0`);
    response.redirect(303, '/login');
  });

  authed.get(
    '/',
    wrap(async (_request, response) => {
      const { csrf: token } = sessionOf(response);
      const today = dayOf(new Date(), ctx.timeZone);
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
      const alerts =
        listed === NOT_AVAILABLE ? listed : listed.filter((a) => a.state !== 'resolved');
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
                <td>
                  ${why.length === 0 ? 'all items final and booked; balances agree' : why.join('; ')}
                </td>
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
                      <td><a href="/items/${encodeURIComponent(t.id)}">${t.id}</a></td>
                      <td>${t.kind === 'transfer' ? t.description : ''}</td>
                      <td class="num">${formatAmount(t.amount, t.currency)}</td>
                      <td>${t.failureMessage ?? t.failureCode ?? r.upstreamStatus}</td>
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
                        <td>
                          ${d.resourceId ? html`<a href="/items/${encodeURIComponent(d.resourceId)}">${d.line}</a>` : d.line}
                        </td>
                        <td>${d.action}</td>
                        <td>
                          <form method="post" action="/actions/discrepancies/${d.id}/resolve">
                            <input type="hidden" name="csrf" value="${token}" /><button>
                              Resolve
                            </button>
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
                          <td>${a.summary}</td>
                          <td>${a.state}</td>
                          <td>${a.createdAt}</td>
                          <td>
                            ${
                              a.state === 'open'
                                ? html`<form method="post" action="/actions/alerts/${a.id}/ack">
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
      send(response, 200, page({ title: `Today (${today})`, current: '/', csrf: token, body }));
    }),
  );

  authed.get(
    '/items/:id',
    wrap(async (request, response) => {
      const { csrf: token } = sessionOf(response);
      const id = String(request.params.id);
      const item = await readItem(ctx, id);
      if (!item) {
        return send(
          response,
          404,
          page({
            title: 'Not found',
            csrf: token,
            body: html`<section>
              <p>No item with id <code>${id}</code>.</p>
            </section>`,
          }),
        );
      }
      const record = item.record;
      const body = html` <section id="record">
          <h2>Record</h2>
          <table>
            ${Object.entries(record).map(
              ([key, value]) =>
                html`<tr>
                  <th>${key}</th>
                  <td>
                    ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}
                  </td>
                </tr>`,
            )}
          </table>
        </section>
        <section id="history">
          <h2>Status history</h2>
          ${table(item.history)}
        </section>
        <section id="journals">
          <h2>Journals</h2>
          ${table(item.journals.map((j) => ({ ...j, lines: JSON.stringify(j.lines ?? []) })))}
        </section>
        <section id="discrepancies">
          <h2>Discrepancies</h2>
          ${table(item.discrepancies.map((d) => ({ id: d.id, line: d.line, action: d.action, resolvedAt: d.resolvedAt })))}
        </section>
        <section id="inbox">
          <h2>Inbox events</h2>
          ${
            item.inboxEvents.length === 0
              ? html`<p class="muted">None.</p>`
              : html`<table>
                  <tr>
                    <th>Inbox id</th>
                    <th>Type</th>
                    <th>Status</th>
                    <th>Received</th>
                    <th>Body</th>
                    <th></th>
                  </tr>
                  ${item.inboxEvents.map(
                    (e) =>
                      html`<tr data-inbox-id="${e.inboxId}">
                        <td>${e.inboxId}</td>
                        <td>${e.eventType}</td>
                        <td>${e.status}</td>
                        <td>${e.receivedAt}</td>
                        <td><pre>${e.body}</pre></td>
                        <td>
                          <form method="post" action="/actions/replay">
                            <input type="hidden" name="csrf" value="${token}" /><input
                              type="hidden"
                              name="inboxId"
                              value="${e.inboxId}"
                            /><input type="hidden" name="back" value="${id}" /><button>
                              Replay
                            </button>
                          </form>
                        </td>
                      </tr>`,
                  )}
                </table>`
          }
        </section>
        <section id="receipt">
          <h2>Receipt</h2>
          <iframe sandbox title="receipt" src="/receipts/${encodeURIComponent(id)}"></iframe>
        </section>`;
      send(response, 200, page({ title: `${String(record.kind)} ${id}`, csrf: token, body }));
    }),
  );

  authed.get(
    '/receipts/:id',
    wrap(async (request, response) => {
      const html = await deps.features.receiptHtml(deps.db, String(request.params.id));
      if (html === NOT_AVAILABLE) {
        return serveReceiptHtml(
          response,
          `<p style="color:#6b7280;font-style:italic">Not available: ${NOT_AVAILABLE_MESSAGES.receipts}</p>`,
        );
      }
      serveReceiptHtml(response, html ?? '<p style="color:#6b7280">No receipt for this item.</p>');
    }),
  );

  authed.get(
    '/balances',
    wrap(async (_request, response) => {
      const { csrf: token } = sessionOf(response);
      const balances = await readBalances(ctx);
      const history = await readSnapshotHistory(ctx, {}, 10_000);
      const names = [...new Set(history.map((s) => `${s.accountType} ${s.currency}`))].sort();
      const times = [...new Set(history.map((s) => s.asOf))].sort();
      const values = names.map((name) =>
        times.map(
          (t) =>
            history.find((s) => s.asOf === t && `${s.accountType} ${s.currency}` === name)
              ?.amount ?? null,
        ),
      );
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
          <h2>Balance over time (${names.length} series)</h2>
          <div id="balance-chart"></div>
          <script type="application/json" id="balance-data">
            ${jsonForScript(chart)}
          </script>
        </section>`;
      send(
        response,
        200,
        page({
          title: 'Balances',
          current: '/balances',
          csrf: token,
          body,
          head: html`<link rel="stylesheet" href="/assets/uPlot.min.css" />`,
          scripts: ['/assets/uPlot.iife.min.js', '/assets/balance-chart.js'],
        }),
      );
    }),
  );

  authed.get(
    '/pipeline',
    wrap(async (_request, response) => {
      const { csrf: token } = sessionOf(response);
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
      const queues = deps.queues
        ? await Promise.all(
            (['ingest', 'sync', 'followUp', 'scheduled'] as const).map(async (name) => ({
              name,
              counts: await deps.queues![name].getJobCounts(
                'waiting',
                'active',
                'delayed',
                'failed',
              ),
            })),
          )
        : undefined;
      const received = await inboxCountSince(deps.db, 'received', hourAgo);
      const processed = await inboxCountSince(deps.db, 'processed', hourAgo);
      const refused = (await webhookOutcomes.get()).values
        .filter((v) => !['accepted', 'duplicate'].includes(String(v.labels.outcome)))
        .reduce((sum, v) => sum + v.value, 0);
      const missed = await deps.features.missedWebhooks(deps.db, hourAgo);
      const runs = await deps.features.lastRuns(deps.db);
      const body = html` <section id="queues">
          <h2>Queues</h2>
          ${
            queues
              ? html`<table>
                    <tr>
                      <th>Queue</th>
                      <th class="num">Waiting</th>
                      <th class="num">Active</th>
                      <th class="num">Delayed</th>
                      <th class="num">Failed</th>
                    </tr>
                    ${queues.map(
                      (q) =>
                        html`<tr>
                          <td>${q.name}</td>
                          <td class="num">${q.counts.waiting ?? 0}</td>
                          <td class="num">${q.counts.active ?? 0}</td>
                          <td class="num">${q.counts.delayed ?? 0}</td>
                          <td class="num">${q.counts.failed ?? 0}</td>
                        </tr>`,
                    )}
                  </table>
                  <p>
                    <a href="/admin/queues">Open the queue board</a> to inspect or retry failed
                    jobs.
                  </p>`
              : notAvailable('this process has no queues')
          }
        </section>
        <section id="webhooks">
          <h2>Webhooks in the last hour</h2>
          <table>
            <tr>
              <th>Received</th>
              <td class="num">${received}</td>
            </tr>
            <tr>
              <th>Processed</th>
              <td class="num">${processed}</td>
            </tr>
            <tr>
              <th>Refused <span class="muted">(since this process started)</span></th>
              <td class="num">${refused}</td>
            </tr>
            <tr>
              <th>Missed, found by sweeps</th>
              <td class="num">
                ${missed === NOT_AVAILABLE ? notAvailable(NOT_AVAILABLE_MESSAGES.missed) : missed}
              </td>
            </tr>
          </table>
        </section>
        <section id="runs">
          <h2>Last run of each scheduled task</h2>
          ${runs === NOT_AVAILABLE ? notAvailable(NOT_AVAILABLE_MESSAGES.runs) : table(runs.map((r) => ({ ...r })))}
        </section>`;
      send(response, 200, page({ title: 'Pipeline', current: '/pipeline', csrf: token, body }));
    }),
  );

  authed.get(
    '/exports',
    wrap(async (_request, response) => {
      const { csrf: token } = sessionOf(response);
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
      send(response, 200, page({ title: 'Exports', current: '/exports', csrf: token, body }));
    }),
  );

  authed.get(
    '/exports/:id/download',
    wrap(async (request, response) => {
      const file = await deps.features.openExport(deps.db, String(request.params.id));
      if (file === NOT_AVAILABLE || !file) {
        const { csrf: token } = sessionOf(response);
        const body = html`<section><p>No export file ${String(request.params.id)}.</p></section>`;
        return send(response, 404, page({ title: 'Not found', csrf: token, body }));
      }
      response.setHeader('Content-Type', exportContentType(file.view.format));
      response.attachment(file.view.id);
      await pipeline(file.stream, response);
    }),
  );

  authed.post(
    '/actions/discrepancies/:id/resolve',
    form,
    requireCsrf,
    wrap(async (request, response) => {
      const id = Number(request.params.id);
      if (Number.isSafeInteger(id) && id > 0) await resolveDiscrepancy(deps.db, id);
      response.redirect(303, '/');
    }),
  );
  authed.post(
    '/actions/alerts/:id/ack',
    form,
    requireCsrf,
    wrap(async (request, response) => {
      const id = Number(request.params.id);
      if (Number.isSafeInteger(id) && id > 0)
        await deps.features.ackAlert(deps.db, id, 'dashboard');
      response.redirect(303, '/');
    }),
  );
  authed.post(
    '/actions/replay',
    form,
    requireCsrf,
    wrap(async (request, response) => {
      const body = request.body as Record<string, unknown>;
      const inboxId = Number(body.inboxId);
      if (deps.queues && Number.isSafeInteger(inboxId) && inboxId > 0) {
        await replayInboxEvents({ db: deps.db, queues: deps.queues }, { inboxId });
      }
      const back = typeof body.back === 'string' ? `/items/${encodeURIComponent(body.back)}` : '/';
      response.redirect(303, back);
    }),
  );
  router.use(authed);
  return { router, requireSession };
}

/** A plain table of flat rows (values escaped by html``). */
function table(rows: readonly Record<string, unknown>[]): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">None.</p>`;
  const keys = Object.keys(rows[0]!);
  return html`<table>
    <tr>
      ${keys.map((k) => html`<th>${k}</th>`)}
    </tr>
    ${rows.map(
      (row) =>
        html`<tr>
          ${keys.map((k) => html`<td>${typeof row[k] === 'object' && row[k] !== null ? JSON.stringify(row[k]) : String(row[k] ?? '')}</td>`)}
        </tr>`,
    )}
  </table>`;
}

/** One table of export files: the given columns, then the sha256 and the download link. */
function exportTable(
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
          ${columns.map(([name, cell]) => html`<td class="${name === 'Rows' ? 'num' : ''}">${cell(e)}</td>`)}
          <td><code title="${e.sha256}">${e.sha256.slice(0, 12)}…</code></td>
          <td>
            ${
              e.bytes === null
                ? html`<span class="verdict verdict-breaks">missing</span>`
                : html`<a href="/exports/${encodeURIComponent(e.id)}/download" download>${e.id}</a>`
            }
          </td>
        </tr>`,
    )}
  </table>`;
}
