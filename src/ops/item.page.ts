import type { Request } from 'express';
import { page, table, textCell, type DashboardView, type PageAnswer } from './dashboard-layout.ts';
import { html } from './html.ts';
import { readItem } from './ops-queries.ts';

/** One item (`/items/:id`): its record, history, journals, breaks, inbox events and receipt. */
export async function itemPage(view: DashboardView, request: Request): Promise<PageAnswer> {
  const { ctx, csrf: token, base } = view;
  const id = String(request.params.id);
  const item = await readItem(ctx, id);
  if (!item) {
    return {
      status: 404,
      html: page({
        title: 'Not found',
        chrome: view,
        body: html`<section>
          <p>No item with id <code>${id}</code>.</p>
        </section>`,
      }),
    };
  }
  const record = item.record;
  const body = html` <section id="record">
      <h2>Record</h2>
      <table>
        ${Object.entries(record).map(
          ([key, value]) =>
            html`<tr>
              <th>${key}</th>
              ${textCell(typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value))}
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
                    ${textCell(e.eventType)}
                    <td>${e.status}</td>
                    <td>${e.receivedAt}</td>
                    <td>
                      ${
                        e.bodyPrunedAt
                          ? html`<span class="muted"
                              >body pruned by retention at ${e.bodyPrunedAt}</span
                            >`
                          : html`<pre>${e.body}</pre>`
                      }
                    </td>
                    <td>
                      <form method="post" action="${base}/actions/replay">
                        <input type="hidden" name="csrf" value="${token}" /><input
                          type="hidden"
                          name="inboxId"
                          value="${e.inboxId}"
                        /><input type="hidden" name="back" value="${id}" /><button>Replay</button>
                      </form>
                    </td>
                  </tr>`,
              )}
            </table>`
      }
    </section>
    <section id="receipt">
      <h2>Receipt</h2>
      <iframe sandbox title="receipt" src="${base}/receipts/${encodeURIComponent(id)}"></iframe>
    </section>`;
  return {
    status: 200,
    html: page({ title: `${String(record.kind)} ${id}`, chrome: view, body }),
  };
}
