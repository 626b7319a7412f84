import { html, SafeHtml } from './html.ts';
import type { ResolvedOpsDependencies } from './ops-dependencies.ts';
import type { OpsReadContext } from './ops-queries.ts';

/** The tenants a dashboard session may see, in a process serving several (the switcher). */
export interface TenantSwitch {
  /** The tenant whose page this is. */
  readonly current: string;
  /** Every tenant the session's token may see, `current` among them, in the file's order. */
  readonly tenants: readonly string[];
}

/** What the layout of a signed-in page needs: the forms' CSRF token, where the links start. */
export interface PageChrome {
  readonly csrf: string;
  /**
   * The path the dashboard is served under: `''` for a process with one tenant (the pages at
   * `/`), `/tenants/<tenant>` for one tenant's dashboard in a process serving several. Every
   * link, form and redirect of the dashboard starts with it.
   */
  readonly base: string;
  /** The tenant switcher; none in a process with one tenant. */
  readonly switcher?: TenantSwitch | undefined;
}

/** What a dashboard page is given: the ops parts, the viewer's CSRF token and the links' base. */
export interface DashboardView extends PageChrome {
  readonly deps: ResolvedOpsDependencies;
  readonly ctx: OpsReadContext;
}

/** A rendered dashboard page and its status. */
export interface PageAnswer {
  readonly status: number;
  readonly html: string;
}

export const PANELS = [
  ['/', 'Today'],
  ['/balances', 'Balances'],
  ['/pipeline', 'Pipeline'],
  ['/exports', 'Exports'],
  ['/endpoints', 'Endpoints'],
  ['/expectations', 'Expectations'],
  ['/admin/queues', 'Queues'],
] as const;

const STYLE = `
*{box-sizing:border-box}body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{background:#1d2430;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.8rem;align-items:center}
header a{color:#cfe0ff;text-decoration:none}header a.current{color:#fff;font-weight:600;text-decoration:underline}
header .brand{font-weight:700;margin-right:1rem}header form{margin-left:auto}
header .tenants{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;padding:.1rem .5rem;border:1px solid #4a5568;border-radius:4px}header .tenants .label{color:#9aa5b1}
main{padding:1rem;max-width:1100px;margin:auto}section{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:.8rem 1rem;margin-bottom:1rem;overflow-x:auto}
h1{font-size:1.3rem;margin:.2rem 0 1rem}h2{font-size:1.05rem;margin:.2rem 0 .6rem}h1,h2,p{overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #eef0f3;vertical-align:top}td{overflow-wrap:anywhere}.verdict,button{white-space:nowrap}
th{font-weight:600;color:#4a5568}.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{display:inline-block;padding:.1rem .5rem;border-radius:4px;font-weight:600}
.verdict-reconciled,.verdict-agrees{background:#d9f2e3;color:#17603a}.verdict-incomplete,.verdict-pending,.verdict-reconciled_with_pending{background:#fff1cc;color:#7a5600}
.verdict-breaks,.verdict-drift{background:#fde0e0;color:#8a1c1c}.muted{color:#6b7280}.na{color:#6b7280;font-style:italic}
button{font:inherit;padding:.2rem .6rem;border-radius:4px;border:1px solid #9aa5b1;background:#fff;cursor:pointer}
input{font:inherit;padding:.3rem}iframe{width:100%;min-height:320px;border:1px solid #dde1e7;background:#fff}
pre{white-space:pre-wrap;word-break:break-all;font-size:12px;background:#f3f4f6;padding:.4rem}
@media (min-width:641px){.num{white-space:nowrap}}
@media (max-width:640px){body{font-size:14px}main{padding:.5rem}section{padding:.6rem .5rem}th,td{padding:.25rem;overflow-wrap:anywhere}.verdict{white-space:normal;overflow-wrap:break-word}td.num,#record th{overflow-wrap:normal}}
`;

/** Where each tenant's dashboard is, in a process serving several: `/tenants/<tenant>`. */
export function tenantDashboardBase(tenant: string): string {
  return `/tenants/${encodeURIComponent(tenant)}`;
}

/** The switcher: a link to each tenant the session may see, the current one marked. */
function tenantSwitch(switcher: TenantSwitch): SafeHtml {
  return html`<nav class="tenants" aria-label="Tenants">
    <span class="label">Tenant</span>
    ${switcher.tenants.map(
      (tenant) =>
        html`<a
          href="${tenantDashboardBase(tenant)}/"
          class="${tenant === switcher.current ? 'current' : ''}"
          ${tenant === switcher.current ? new SafeHtml('aria-current="page"') : ''}
          >${tenant}</a
        > `,
    )}
  </nav>`;
}

/**
 * A page in the dashboard's layout. With `chrome` (a signed-in viewer) the header holds the
 * panels, the tenant switcher when there is one, and the log-out form; without it (log in, not
 * found) the header is bare.
 */
export function page(options: {
  title: string;
  current?: string;
  chrome?: PageChrome;
  body: SafeHtml;
  scripts?: readonly string[];
  head?: SafeHtml;
}): string {
  const chrome = options.chrome;
  const at = (path: string) => `${chrome?.base ?? ''}${path}`;
  const nav = chrome
    ? html`${chrome.switcher ? tenantSwitch(chrome.switcher) : ''}
        <nav>
          ${PANELS.map(
            ([href, label]) =>
              html`<a href="${at(href)}" class="${href === options.current ? 'current' : ''}"
                >${label}</a
              > `,
          )}
        </nav>
        <form method="post" action="${chrome.base}/logout">
          <input type="hidden" name="csrf" value="${chrome.csrf}" /><button>Log out</button>
        </form>`
    : html``;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · paysync</title>
        <style>
          ${new SafeHtml(STYLE)}
        </style>
        ${options.head ?? html``}
      </head>
      <body>
        <header><span class="brand">paysync</span>${nav}</header>
        <main>
          <h1>${options.title}</h1>
          ${options.body}
        </main>
        ${(options.scripts ?? []).map((src) => html`<script src="${src}"></script>`)}
      </body>
    </html>`.text;
}

/**
 * The login form. It posts to `/login` in either kind of process: with several tenants that is
 * the process's one login, whose session may see the tenants of the token given.
 */
export function loginPage(message?: string): string {
  return page({
    title: 'Log in',
    body: html`<section>
      <form method="post" action="/login">
        <p>
          Paste the admin token (<code>PAYSYNC_ADMIN_TOKEN</code>) once; the browser keeps a session
          cookie.
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
}

/**
 * The page of a dashboard path that does not exist. Another tenant's pages answer exactly this
 * (no switcher, no tenant named), so a session learns nothing of tenants it may not see.
 */
export function notFoundPage(): string {
  return page({
    title: 'Not found',
    body: html`<section>
      <p>No such page. <a href="/">Back to the dashboard</a></p>
    </section>`,
  });
}

export function verdictBadge(verdict: string | undefined): SafeHtml {
  if (!verdict) return html`<span class="na">no verdict stored</span>`;
  return html`<span class="verdict verdict-${verdict.toLowerCase()}">${verdict}</span>`;
}

export function notAvailable(message: string): SafeHtml {
  return html`<p class="na">Not available: ${message}</p>`;
}

/** Longer text is cut on the page (the full text stays in the cell's `title`, shown on hover). */
export const CELL_TEXT_LIMIT = 160;

/**
 * A table cell of outside text (a description, a failure message, a break's line): it wraps
 * anywhere so no column is pushed out of its card, is cut past {@link CELL_TEXT_LIMIT}
 * characters, and always carries the full text in `title`.
 */
export function textCell(value: unknown, content?: SafeHtml): SafeHtml {
  const text = value === undefined || value === null ? '' : String(value);
  return html`<td title="${text}">${content ?? clipped(text)}</td>`;
}

/** The text cut to {@link CELL_TEXT_LIMIT} characters, with `…` when cut. */
export function clipped(text: string): string {
  return text.length > CELL_TEXT_LIMIT ? `${text.slice(0, CELL_TEXT_LIMIT - 1)}…` : text;
}

/** A plain table of flat rows (values escaped by html``, each a {@link textCell}). */
export function table(rows: readonly Record<string, unknown>[]): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">None.</p>`;
  const keys = Object.keys(rows[0]!);
  return html`<table>
    <tr>
      ${keys.map((k) => html`<th>${k}</th>`)}
    </tr>
    ${rows.map(
      (row) =>
        html`<tr>
          ${keys.map((k) => textCell(typeof row[k] === 'object' && row[k] !== null ? JSON.stringify(row[k]) : String(row[k] ?? '')))}
        </tr>`,
    )}
  </table>`;
}
