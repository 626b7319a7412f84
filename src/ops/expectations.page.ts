import type { Request } from 'express';
import {
  BREAK_KINDS,
  EXPECTATION_STATES,
  expectationCounts,
  listBreaks,
  listExpectations,
  type BreakView,
  type ExpectationBreakKind,
  type ExpectationState,
  type ExpectationView,
} from '../expectations/index.ts';
import { maskNumber } from '../alerts/index.ts';
import { formatAmount } from '../money/index.ts';
import { page, textCell, type DashboardView, type PageAnswer } from './dashboard-layout.ts';
import { html, type SafeHtml } from './html.ts';

/** Rows shown per table; the CLI and the API page through the rest. */
const SHOWN_ROWS = 200;

/** States in which an expectation can still be resolved by hand. */
const RESOLVABLE: readonly ExpectationState[] = ['open', 'partially_matched', 'matched', 'overdue'];

/** The filters of the page, from its query: anything unknown is ignored (the default). */
export interface ExpectationsFilter {
  /** Absent: open and overdue. */
  readonly state?: ExpectationState;
  readonly kind?: ExpectationBreakKind;
  /** @defaultValue open */
  readonly breakState: 'open' | 'resolved';
}

export function expectationsFilter(request: Request): ExpectationsFilter {
  const given = (name: string) =>
    typeof request.query[name] === 'string' ? (request.query[name] as string) : undefined;
  const state = EXPECTATION_STATES.find((s) => s === given('state'));
  const kind = BREAK_KINDS.find((k) => k === given('kind'));
  return {
    ...(state ? { state } : {}),
    ...(kind ? { kind } : {}),
    breakState: given('break_state') === 'resolved' ? 'resolved' : 'open',
  };
}

/** The page's own address with its filters: where a resolve form comes back to. */
function backOf(filter: ExpectationsFilter): string {
  const query = new URLSearchParams();
  if (filter.state) query.set('state', filter.state);
  if (filter.kind) query.set('kind', filter.kind);
  if (filter.breakState !== 'open') query.set('break_state', filter.breakState);
  const text = query.toString();
  return `/expectations${text ? `?${text}` : ''}`;
}

function amountOf(e: ExpectationView): string {
  return e.amount_min === e.amount_max
    ? formatAmount(e.amount_min, e.currency)
    : `${formatAmount(e.amount_min, e.currency)} – ${formatAmount(e.amount_max, e.currency)}`;
}

/** Who, when and why of a resolution by hand: always shown as such. */
function manual(by: string | null, at: string | null, reason: string | null): SafeHtml {
  return html`<span class="manual"
    ><span class="verdict verdict-pending">resolved by hand</span> by ${by ?? '?'} at ${at ?? '?'}:
    ${reason ?? ''}</span
  >`;
}

function resolveForm(action: string, csrf: string, back: string, label: string): SafeHtml {
  return html`<form method="post" action="${action}" class="resolve">
    <input type="hidden" name="csrf" value="${csrf}" />
    <input type="hidden" name="back" value="${back}" />
    <input name="reason" placeholder="Reason (required)" required maxlength="1000" />
    <input name="by" placeholder="By" maxlength="200" size="8" />
    <button>${label}</button>
  </form>`;
}

function stateCell(e: ExpectationView): SafeHtml {
  if (e.state === 'resolved_manually') {
    return html`<td>${manual(e.resolved_by, e.resolved_at, e.resolution_reason)}</td>`;
  }
  const tone =
    e.state === 'matched'
      ? 'agrees'
      : e.state === 'overdue'
        ? 'breaks'
        : e.state === 'cancelled'
          ? 'na'
          : 'pending';
  return html`<td><span class="verdict verdict-${tone}">${e.state}</span></td>`;
}

function filterForm(filter: ExpectationsFilter, base: string): SafeHtml {
  const option = (value: string, label: string, current: string | undefined) =>
    html`<option value="${value}" ${value === (current ?? '') ? html`selected` : ''}>
      ${label}
    </option>`;
  return html`<form method="get" action="${base}/expectations" id="filters">
    <label
      >Expectations
      <select name="state">
        ${option('', 'open and overdue', filter.state)}
        ${EXPECTATION_STATES.map((s) => option(s, s, filter.state))}
      </select></label
    >
    <label
      >Breaks
      <select name="break_state">
        ${option('open', 'open', filter.breakState)}
        ${option('resolved', 'resolved', filter.breakState)}
      </select></label
    >
    <label
      >Kind
      <select name="kind">
        ${option('', 'every kind', filter.kind)}
        ${BREAK_KINDS.map((k) => option(k, k, filter.kind))}
      </select></label
    >
    <button>Filter</button>
  </form>`;
}

/**
 * Expectations (docs/expectations.md): counts by state and open breaks by kind; the open and
 * overdue expectations (or those of the `state` filter) and the breaks (open, or resolved;
 * `kind` filter), each still open with a resolve form (reason required, CSRF-protected). A
 * resolution by hand shows who, when and why. Counterparty numbers are masked.
 */
export async function expectationsPage(view: DashboardView, request: Request): Promise<PageAnswer> {
  const { deps, csrf, base } = view;
  const filter = expectationsFilter(request);
  const back = backOf(filter);
  const counts = await expectationCounts(deps.db, deps.environment);
  const expectations = filter.state
    ? await listExpectations(deps.db, deps.environment, { state: filter.state, limit: SHOWN_ROWS })
    : [
        ...(await listExpectations(deps.db, deps.environment, {
          state: 'overdue',
          limit: SHOWN_ROWS,
        })),
        ...(await listExpectations(deps.db, deps.environment, {
          state: 'open',
          limit: SHOWN_ROWS,
        })),
      ];
  const breaks = await listBreaks(deps.db, deps.environment, {
    state: filter.breakState,
    ...(filter.kind ? { kind: filter.kind } : {}),
    limit: SHOWN_ROWS,
  });
  const breakRow = (b: BreakView) =>
    html`<tr data-id="${b.id}">
      <td>${b.kind}</td>
      ${textCell(b.expectation_id ?? '')} ${textCell(b.item_id ?? '')}
      <td class="num">
        ${b.difference !== null && b.currency !== null ? formatAmount(b.difference, b.currency) : ''}
      </td>
      ${textCell(b.explanation)} ${textCell(b.suggested_action)}
      <td>${b.detected_at}</td>
      <td>
        ${
          b.state === 'resolved'
            ? manual(b.resolved_by, b.resolved_at, b.resolution_reason)
            : resolveForm(
                `${base}/actions/expectation-breaks/${b.id}/resolve`,
                csrf,
                back,
                'Resolve',
              )
        }
      </td>
    </tr>`;
  const expectationRow = (e: ExpectationView) =>
    html`<tr data-id="${e.expectation_id}">
      ${textCell(e.expectation_id)}
      <td>${e.direction}</td>
      <td class="num">${amountOf(e)}</td>
      <td class="num">${formatAmount(e.matched_amount, e.currency)}</td>
      <td>${e.window_from} – ${e.window_to}</td>
      ${textCell(e.reference ?? '')}
      <td class="counterparty">${e.counterparty === null ? '-' : maskNumber(e.counterparty)}</td>
      ${stateCell(e)}
      <td>
        ${
          RESOLVABLE.includes(e.state)
            ? resolveForm(
                `${base}/actions/expectations/${encodeURIComponent(e.expectation_id)}/resolve`,
                csrf,
                back,
                'Resolve',
              )
            : ''
        }
      </td>
    </tr>`;
  const body = html`<section id="expectation-counts">
      <h2>By state</h2>
      <table>
        <tr>
          ${EXPECTATION_STATES.map((s) => html`<th class="num">${s}</th>`)}
        </tr>
        <tr>
          ${EXPECTATION_STATES.map(
            (s) => html`<td class="num" data-state="${s}">${counts.states[s]}</td>`,
          )}
        </tr>
      </table>
      <h2>Open breaks</h2>
      <table>
        <tr>
          ${BREAK_KINDS.map((k) => html`<th class="num">${k}</th>`)}
        </tr>
        <tr>
          ${BREAK_KINDS.map(
            (k) => html`<td class="num" data-kind="${k}">${counts.openBreaks[k]}</td>`,
          )}
        </tr>
      </table>
    </section>
    <section>${filterForm(filter, base)}</section>
    <section id="expectations">
      <h2>${filter.state ? `Expectations: ${filter.state}` : 'Open and overdue expectations'}</h2>
      ${
        expectations.length === 0
          ? html`<p class="muted">None.</p>`
          : html`<table>
              <tr>
                <th>Expectation</th>
                <th>Direction</th>
                <th class="num">Expected</th>
                <th class="num">Matched</th>
                <th>Window</th>
                <th>Reference</th>
                <th>Counterparty</th>
                <th>State</th>
                <th></th>
              </tr>
              ${expectations.map(expectationRow)}
            </table>`
      }
    </section>
    <section id="breaks">
      <h2>
        ${filter.breakState === 'open' ? 'Open breaks' : 'Resolved breaks'}${
          filter.kind ? `: ${filter.kind}` : ''
        }
      </h2>
      ${
        breaks.length === 0
          ? html`<p class="muted">None.</p>`
          : html`<table>
              <tr>
                <th>Kind</th>
                <th>Expectation</th>
                <th>Item</th>
                <th class="num">Difference</th>
                <th>Explanation</th>
                <th>Suggested action</th>
                <th>Detected</th>
                <th></th>
              </tr>
              ${breaks.map(breakRow)}
            </table>`
      }
    </section>`;
  return {
    status: 200,
    html: page({ title: 'Expectations', current: '/expectations', chrome: view, body }),
  };
}
