import { inboxCountSince } from '../inbox/index.ts';
import { QUEUE_KEYS } from '../queues/enqueue.ts';
import { webhookOutcomes } from '../metrics/index.ts';
import { outboxBacklog } from '../outbox/index.ts';
import {
  notAvailable,
  page,
  table,
  type DashboardView,
  type PageAnswer,
} from './dashboard-layout.ts';
import { html } from './html.ts';
import { NOT_AVAILABLE, NOT_AVAILABLE_MESSAGES } from './ops-features.ts';

/** Pipeline: queue depths, the last hour's webhooks and the last run of each scheduled task. */
export async function pipelinePage(view: DashboardView): Promise<PageAnswer> {
  const { deps, base } = view;
  const hourAgo = new Date(deps.now().getTime() - 3_600_000).toISOString();
  const queues = deps.queues
    ? await Promise.all(
        QUEUE_KEYS.map(async (name) => ({
          name,
          counts: await deps.queues![name].getJobCounts('waiting', 'active', 'delayed', 'failed'),
        })),
      )
    : undefined;
  const received = await inboxCountSince(deps.db, 'received', hourAgo);
  const processed = await inboxCountSince(deps.db, 'processed', hourAgo);
  // In a process serving several tenants the counter holds every tenant's series: this
  // tenant's only (a process of one tenant labels none).
  const tenant = deps.tenantDashboard?.tenant;
  const refused = (await webhookOutcomes.get()).values
    .filter((v) => v.labels.tenant === tenant)
    .filter((v) => !['accepted', 'duplicate'].includes(String(v.labels.outcome)))
    .reduce((sum, v) => sum + v.value, 0);
  const missed = await deps.features.missedWebhooks(deps.db, hourAgo);
  const runs = await deps.features.lastRuns(deps.db);
  const backlog = await outboxBacklog(deps.db);
  const waitingOf = (kind: string) => backlog.find((row) => row.kind === kind);
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
                <a href="${base}/admin/queues">Open the queue board</a> to inspect or retry failed
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
    <section id="follow-ups">
      <h2>Follow-ups waiting</h2>
      <p class="muted">
        Receipts take what the books leave of the service's budget, so a backlog of receipts behind
        a burst is expected; alerts should never wait long.
      </p>
      <table>
        <tr>
          <th>Kind</th>
          <th class="num">Waiting</th>
          <th>Oldest since</th>
        </tr>
        ${(['alert', 'receipt'] as const).map(
          (kind) =>
            html`<tr>
              <td>${kind}s</td>
              <td class="num">${waitingOf(kind)?.waiting ?? 0}</td>
              <td>${waitingOf(kind)?.oldestAt ?? '—'}</td>
            </tr>`,
        )}
      </table>
    </section>
    <section id="runs">
      <h2>Last run of each scheduled task</h2>
      ${runs === NOT_AVAILABLE ? notAvailable(NOT_AVAILABLE_MESSAGES.runs) : table(runs.map((r) => ({ ...r })))}
    </section>`;
  return {
    status: 200,
    html: page({ title: 'Pipeline', current: '/pipeline', chrome: view, body }),
  };
}
