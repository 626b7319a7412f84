import { endpointAttempts, listEndpoints, type EndpointWithHealth } from '../relay/index.ts';
import { page, textCell, type DashboardView, type PageAnswer } from './dashboard-layout.ts';
import { html, type SafeHtml } from './html.ts';

/** Recent deliveries shown per endpoint. */
const SHOWN_ATTEMPTS = 20;

function ageText(ms: number | null): string {
  if (ms === null) return '';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.floor(ms / 1000)}s`;
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

function stateBadge({ endpoint, health }: EndpointWithHealth): SafeHtml {
  if (health.state === 'disabled') {
    return html`<span class="verdict verdict-breaks"
      >disabled (${endpoint.disabledReason ?? 'operator'})</span
    >`;
  }
  if (health.state === 'failing') return html`<span class="verdict verdict-pending">failing</span>`;
  return html`<span class="verdict verdict-agrees">healthy</span>`;
}

function toggle(entry: EndpointWithHealth, csrf: string, base: string): SafeHtml {
  const action = entry.endpoint.status === 'disabled' ? 'enable' : 'disable';
  return html`<form
    method="post"
    action="${base}/actions/endpoints/${encodeURIComponent(entry.endpoint.id)}/${action}"
  >
    <input type="hidden" name="csrf" value="${csrf}" /><button>
      ${action === 'enable' ? 'Enable' : 'Disable'}
    </button>
  </form>`;
}

/**
 * Endpoints: each endpoint of the relay with its health (state, failing since, last success,
 * pending deliveries and the oldest one's age), an enable/disable button, and its recent
 * deliveries. Every value from outside (URL, description, the answer's excerpt) is text.
 */
export async function endpointsPage(view: DashboardView): Promise<PageAnswer> {
  const { deps, csrf: token, base } = view;
  const endpoints = await listEndpoints(deps.db, deps.now());
  const deliveries = await Promise.all(
    endpoints.map((entry) =>
      endpointAttempts(deps.db, entry.endpoint.id, { limit: SHOWN_ATTEMPTS, offset: 0 }),
    ),
  );
  const body =
    endpoints.length === 0
      ? html`<section id="endpoints">
          <h2>Endpoints</h2>
          <p class="muted">
            No endpoint yet: add one with
            <code>paysync endpoints add --url https://…</code> (docs/relay.md).
          </p>
        </section>`
      : html`<section id="endpoints">
            <h2>Endpoints</h2>
            <table>
              <tr>
                <th>Endpoint</th>
                <th>Events</th>
                <th>State</th>
                <th>Failing since</th>
                <th>Last success</th>
                <th class="num">Pending</th>
                <th>Oldest pending</th>
                <th></th>
              </tr>
              ${endpoints.map(
                (entry) =>
                  html`<tr data-endpoint="${entry.endpoint.id}">
                    ${textCell(
                      `${entry.endpoint.id} ${entry.endpoint.url}${entry.endpoint.description ? ` (${entry.endpoint.description})` : ''}`,
                    )}
                    ${textCell(entry.endpoint.events?.join(', ') ?? 'all types')}
                    <td>${stateBadge(entry)}</td>
                    <td>${entry.health.failingSince ?? ''}</td>
                    <td>${entry.health.lastSuccessAt ?? ''}</td>
                    <td class="num">${entry.health.pending}</td>
                    <td>${ageText(entry.health.oldestPendingAgeMs)}</td>
                    <td>${toggle(entry, token, base)}</td>
                  </tr>`,
              )}
            </table>
          </section>
          ${endpoints.map(
            (entry, index) =>
              html`<section class="deliveries" data-endpoint="${entry.endpoint.id}">
                <h2>Recent deliveries to ${entry.endpoint.id}</h2>
                ${
                  deliveries[index]!.length === 0
                    ? html`<p class="muted">No delivery attempted yet.</p>`
                    : html`<table>
                        <tr>
                          <th>Time</th>
                          <th>Event type</th>
                          <th>Outcome</th>
                          <th class="num">Status</th>
                          <th class="num">ms</th>
                          <th>Answer</th>
                        </tr>
                        ${deliveries[index]!.map(
                          (attempt) =>
                            html`<tr data-event="${attempt.eventId}">
                              <td>${attempt.attemptedAt}</td>
                              ${textCell(attempt.eventType)}
                              <td>${attempt.outcome}</td>
                              <td class="num">${attempt.statusCode ?? ''}</td>
                              <td class="num">${attempt.durationMs}</td>
                              ${textCell(attempt.error ?? attempt.excerpt ?? '')}
                            </tr>`,
                        )}
                      </table>`
                }
              </section>`,
          )}`;
  return {
    status: 200,
    html: page({ title: 'Endpoints', current: '/endpoints', chrome: view, body }),
  };
}
