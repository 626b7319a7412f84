import type { JournalLine, MirrorRecord } from '../../ledger/index.ts';
import type {
  ItemRefund,
  ItemReversal,
  RefundedItem,
  ResourceView,
} from '../../resource-view/index.ts';
import { formatAmount, formatMinorAndHuman } from './format-amount.ts';
import { formatTime } from './format-time.ts';
import { renderTable } from './render-table.ts';

const KIND_NAMES: Record<MirrorRecord['kind'], string> = {
  payment_intent: 'Payment intent',
  transfer: 'Transfer',
  refund: 'Refund (of a transfer)',
  payment_refund: 'Payment refund',
};

/** What a failed resource of each kind would have booked, had it succeeded. */
const NOTHING_BOOKED: Record<MirrorRecord['kind'], string> = {
  payment_intent:
    'No money moved: a failed payment posts nothing. A later attempt on the same intent may still pay it.',
  transfer: 'No money moved: failed transfers post nothing, so no journal lines were booked.',
  refund: 'No money moved: failed refunds post nothing, so no journal lines were booked.',
  payment_refund: 'No money moved: failed refunds post nothing, so no journal lines were booked.',
};

function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : by + line))
    .join('\n');
}

function fields(pairs: readonly (readonly [string, string | null | undefined])[]): string {
  const shown = pairs.filter(([, value]) => value !== undefined && value !== null && value !== '');
  const width = Math.max(...shown.map(([label]) => label.length));
  return shown.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}

function destinationOf(destination: Readonly<Record<string, unknown>>): string {
  return Object.entries(destination)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== 'object')
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(', ');
}

const REFUNDED_KIND_NAMES: Record<RefundedItem['kind'], string> = {
  transfer: 'transfer',
  payment_intent: 'payment intent',
};

/** `tr_… (transfer, successful, 250,000 XOF)`: the item a refund refunds. */
function refundedItemText(item: RefundedItem): string {
  const kind = REFUNDED_KIND_NAMES[item.kind];
  if (!item.mirrored || item.amount === null || item.currency === null) {
    return `${item.id} (${kind}, not in the mirror: run \`paysync sweep\`)`;
  }
  return `${item.id} (${kind}, ${item.status}, ${formatAmount(item.amount, item.currency)})`;
}

function recordFields(record: MirrorRecord, refundOf: RefundedItem | null): string {
  const pairs: [string, string | null | undefined][] = [
    ['status', record.status],
    [
      'service says',
      record.upstreamStatus === record.status
        ? undefined
        : `${record.upstreamStatus} (held at ${record.status}: a final status never goes back; see discrepancies)`,
    ],
    ['amount', formatMinorAndHuman(record.amount, record.currency)],
  ];
  if (record.kind === 'payment_intent') {
    pairs.push(
      ['purchase ref', record.purchaseReference],
      ['customer ref', record.customerReference],
      ['mode', record.mode],
      ['sub-merchant', record.subMerchantId],
    );
  } else if (record.kind === 'transfer') {
    pairs.push(
      ['reference', record.reference],
      [
        'fees',
        record.fees.length === 0
          ? 'none'
          : record.fees.map((fee) => formatMinorAndHuman(fee.amount, fee.currency)).join('; '),
      ],
      ['destination', destinationOf(record.destination)],
      ['account', record.isIrt ? 'transfer-irt (IRT)' : 'transfer'],
      ['description', record.description],
      ['provider ref', record.providerReference],
      ['mode', record.mode],
    );
  } else {
    pairs.push(
      ['refund of', refundOf ? refundedItemText(refundOf) : record.originalId],
      ['reason', record.reason],
      ['method', record.paymentMethod],
      ['mode', record.mode],
    );
  }
  pairs.push(
    [
      'failure',
      record.failureCode
        ? `${record.failureCode}${record.failureMessage ? `: ${record.failureMessage}` : ''}`
        : undefined,
    ],
    ['created', formatTime(record.createdAt)],
    ['service updated', formatTime(record.updatedAt)],
    ['first seen', formatTime(record.firstSeenAt)],
    ['last synced', formatTime(record.lastSyncedAt)],
  );
  return fields(pairs);
}

/**
 * Why a resource ended where it did, in words an operator can act on: its own status, then
 * what touched it since (refunds booked, pending or failed), so the story never stops at "It
 * settled" when money went back; a refund first names the item it refunds.
 */
function explanation(view: ResourceView): string[] {
  const { record } = view;
  const refunded = view.refunds.filter((r) => r.bookedAt !== null && r.reversedAt === null);
  const lines = view.refundOf ? [`It refunds ${refundedItemText(view.refundOf)}.`] : [];
  if (record.status === 'successful' && view.journals.length > 0 && refunded.length > 0) {
    lines.push(
      `It settled, then ${refunded.map(refundedText).join(', and ')}. The journal below is what the ${KIND_NAMES[record.kind].toLowerCase()} itself booked; each refund books its own (\`paysync show <refund id>\`).`,
    );
  } else {
    lines.push(...statusLines(view));
    // A refund booked against an item that is not settled here: said all the same.
    lines.push(...refunded.map((r) => `${capitalised(refundedText(r))}.`));
  }
  if (record.status !== 'failed' && view.reversals.length > 0) {
    // Failed told it above; otherwise a reversal is history the status alone would hide.
    lines.push(`Earlier, ${view.reversals.map(reversalText).join(', and ')}.`);
  }
  lines.push(...refundTotal(record, refunded));
  lines.push(...view.refunds.filter((r) => !refunded.includes(r)).map(unbookedRefundText));
  return lines;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What the item's own status says. */
function statusLines(view: ResourceView): string[] {
  const { record } = view;
  if (record.status === 'failed') {
    const cause = record.failureCode
      ? `${record.failureCode}${record.failureMessage ? ` (${record.failureMessage})` : ''}`
      : 'the service gave no failure cause';
    return [
      `It failed: ${cause}.`,
      view.journals.length === 0
        ? NOTHING_BOOKED[record.kind]
        : view.reversals.length > 0
          ? `It had settled, then ${view.reversals.map(reversalText).join(', and ')} (see below).`
          : 'Journals are on file for it: a settlement was booked earlier and reversed (see below).',
    ];
  }
  if (record.status === 'successful') {
    return [
      view.journals.length > 0
        ? 'It settled: the journal below is what it booked.'
        : 'It settled, but no journal is on file: check the discrepancies below and `paysync doctor`.',
    ];
  }
  if (record.status === 'canceled') return ['It was canceled: no money moved.'];
  return [`It is not final yet (${record.status}): nothing is booked until it settles.`];
}

/** `1,000 XOF was refunded by refund 1002 on 2026-…`. */
function refundedText(refund: ItemRefund): string {
  return `${formatAmount(refund.amount, refund.currency)} was refunded by refund ${refund.id} on ${formatTime(refund.bookedAt)}`;
}

/** A refund that moved no money (yet), or whose booking was reversed. */
function unbookedRefundText(refund: ItemRefund): string {
  const amount = formatAmount(refund.amount, refund.currency);
  if (refund.reversedAt !== null) {
    return `Refund ${refund.id} of ${amount} was booked on ${formatTime(refund.bookedAt)} and reversed on ${formatTime(refund.reversedAt)} (${refund.status}): no money is refunded by it.`;
  }
  if (refund.status === 'failed' || refund.status === 'canceled') {
    return `Refund ${refund.id} of ${amount} ${refund.status}: no money moved.`;
  }
  return `Refund ${refund.id} of ${amount} is ${refund.status}: nothing is booked for it until it settles.`;
}

/** In all, how much of the item was refunded: `Refunded in full: 250,000 of 250,000 XOF.` */
function refundTotal(record: MirrorRecord, refunded: readonly ItemRefund[]): string[] {
  if (refunded.length === 0) return [];
  const same = refunded.filter((r) => r.currency === record.currency);
  const full = same.reduce((n, r) => n + r.amount, 0) >= record.amount;
  return [`Refunded ${full ? 'in full' : 'in part'}: ${refundedOf(record, refunded)}.`];
}

function refundedOf(record: MirrorRecord, refunded: readonly ItemRefund[]): string {
  const totals = new Map<string, number>();
  for (const r of refunded) totals.set(r.currency, (totals.get(r.currency) ?? 0) + r.amount);
  return [...totals]
    .map(([currency, total]) =>
      currency === record.currency
        ? `${formatAmount(total, currency)} of ${formatAmount(record.amount, currency)}`
        : formatAmount(total, currency),
    )
    .join(', ');
}

/** `its settlement-1 was reversed by journal #9 on 2026-…: 252,500 XOF went back`. */
function reversalText(reversal: ItemReversal): string {
  const back = reversal.amounts.map((a) => formatAmount(a.amount, a.currency)).join(' and ');
  const undone = reversal.settlementKey.replace(/^reversal-/, 'settlement-');
  return `its ${undone} was reversed by journal #${reversal.journalId} on ${formatTime(reversal.effectiveAt)}: ${back} went back`;
}

/** Every refund and reversal that touches the item, oldest booking first. */
function refundsAndReversals(view: ResourceView): string | undefined {
  const isItem = view.record.kind === 'transfer' || view.record.kind === 'payment_intent';
  if (!isItem && view.reversals.length === 0) return undefined;
  const rows = [
    ...view.refunds.map((r) => ({
      kind: r.kind === 'refund' ? 'refund' : 'payment refund',
      id: r.id,
      amount: formatAmount(r.amount, r.currency),
      status:
        r.reversedAt === null
          ? r.status
          : `${r.status} (booking reversed ${formatTime(r.reversedAt)})`,
      booked: r.bookedAt,
      sortKey: r.bookedAt ?? r.updatedAt,
    })),
    ...view.reversals.map((r) => ({
      kind: 'reversal',
      id: `#${r.journalId} ${r.settlementKey}`,
      amount: r.amounts.map((a) => formatAmount(a.amount, a.currency)).join(' + '),
      status: 'booked',
      booked: r.effectiveAt,
      sortKey: r.effectiveAt,
    })),
  ].sort((a, b) => a.sortKey.localeCompare(b.sortKey));
  const title = isItem ? 'Refunds and reversals' : 'Reversals';
  if (rows.length === 0) return section(title, 0, 'none: nothing has refunded or reversed it');
  return section(
    title,
    rows.length,
    renderTable(
      [
        { header: 'KIND', value: (r) => r.kind },
        { header: 'ID', value: (r) => r.id },
        { header: 'AMOUNT', value: (r) => r.amount, align: 'right' },
        { header: 'STATUS', value: (r) => r.status },
        { header: 'BOOKED (UTC)', value: (r) => formatTime(r.booked) },
      ],
      rows,
    ),
  );
}

function journalBlock(view: ResourceView): string {
  if (view.journals.length === 0) {
    return nothingBooked(view.record);
  }
  return view.journals
    .map((journal) => {
      const head = `#${journal.id} ${journal.settlementKey} (${journal.entryType}${journal.reversesJournalId ? ` of #${journal.reversesJournalId}` : ''}), effective ${formatTime(journal.effectiveAt)}, posted ${formatTime(journal.postedAt)} via ${journal.via}${journal.inboxId ? ` (inbox ${journal.inboxId})` : ''}: ${journal.description}`;
      const table = renderTable<JournalLine>(
        [
          { header: 'ACCOUNT', value: (line) => line.account },
          { header: 'DR/CR', value: (line) => (line.amount >= 0 ? 'Dr' : 'Cr') },
          {
            header: 'AMOUNT (minor units)',
            value: (line) => String(Math.abs(line.amount)),
            align: 'right',
          },
          { header: 'CURRENCY', value: (line) => line.currency },
          {
            header: 'AMOUNT',
            value: (line) => formatAmount(Math.abs(line.amount), line.currency),
            align: 'right',
          },
        ],
        journal.lines,
      );
      return `${head}\n${indent(table)}`;
    })
    .join('\n\n');
}

function nothingBooked(record: MirrorRecord): string {
  if (record.status === 'failed')
    return 'none: ' + NOTHING_BOOKED[record.kind].replace(/^No money moved: /, '');
  if (record.status === 'successful') return 'none (unexpected for a settled item)';
  return 'none yet: nothing is booked until it settles';
}

function section(title: string, count: number, body: string): string {
  return `${title} (${count})\n${indent(body)}`;
}

/** What `paysync show <id>` prints: the mirror row, its history, journal and inbox events. */
export function renderResourceView(view: ResourceView): string {
  const { record } = view;
  const blocks: string[] = [];
  blocks.push(
    `${KIND_NAMES[record.kind]} ${record.id}: ${record.status}\n${indent(recordFields(record, view.refundOf))}`,
  );
  blocks.push(`Why\n${indent(explanation(view).join('\n'))}`);
  const touching = refundsAndReversals(view);
  if (touching !== undefined) blocks.push(touching);
  blocks.push(
    section(
      'Status history',
      view.history.length,
      view.history.length === 0
        ? 'none'
        : renderTable(
            [
              { header: 'FROM', value: (c) => c.fromStatus ?? '(first seen)' },
              { header: 'TO', value: (c) => c.toStatus },
              { header: 'OBSERVED (UTC)', value: (c) => formatTime(c.observedAt) },
              { header: 'SERVICE UPDATED (UTC)', value: (c) => formatTime(c.serviceUpdatedAt) },
              { header: 'VIA', value: (c) => c.via },
              {
                header: 'INBOX',
                value: (c) => (c.inboxId === null ? '-' : String(c.inboxId)),
                align: 'right',
              },
            ],
            view.history,
          ),
    ),
  );
  blocks.push(
    section(
      'Journal lines',
      view.journals.reduce((n, j) => n + j.lines.length, 0),
      journalBlock(view),
    ),
  );
  if (view.discrepancies.length > 0) {
    blocks.push(
      section(
        'Discrepancies',
        view.discrepancies.length,
        view.discrepancies
          .map(
            (d) =>
              `#${d.id} ${d.kind} at ${formatTime(d.createdAt)}${d.resolvedAt ? ` (resolved ${formatTime(d.resolvedAt)})` : ' (open)'}: ${JSON.stringify(d.detail)}`,
          )
          .join('\n'),
      ),
    );
  }
  blocks.push(
    section(
      'Inbox events',
      view.inboxEvents.length,
      view.inboxEvents.length === 0
        ? 'none: every state so far came from polling, not a webhook'
        : renderTable(
            [
              { header: 'INBOX', value: (e) => String(e.inboxId), align: 'right' },
              { header: 'EVENT', value: (e) => e.eventId ?? '-' },
              { header: 'TYPE', value: (e) => e.eventType ?? '-' },
              { header: 'STATUS', value: (e) => e.status },
              { header: 'RECEIVED (UTC)', value: (e) => formatTime(e.receivedAt) },
              { header: 'PROCESSED (UTC)', value: (e) => formatTime(e.processedAt) },
              { header: 'TRIES', value: (e) => String(e.attempts), align: 'right' },
              { header: 'LAST ERROR', value: (e) => e.lastError ?? '' },
            ],
            view.inboxEvents,
          ) +
            prunedBodiesNote(view.inboxEvents) +
            tracesNote(view.inboxEvents),
    ),
  );
  return blocks.join('\n\n');
}

/**
 * The traces the item's last webhooks ran in (issue 43): each sampled request's trace holds its
 * sync and booking, so ops can open it in Tempo, Jaeger or Honeycomb. Nothing with tracing off.
 */
function tracesNote(events: readonly { inboxId: number; traceId: string | null }[]): string {
  const traced = events.filter((event) => event.traceId !== null).slice(-5);
  if (traced.length === 0) return '';
  return `\nTraces (docs/observability.md): ${traced.map((event) => `inbox ${event.inboxId} ${event.traceId}`).join(', ')}`;
}

/** Under the inbox table: how many bodies retention pruned (their rows and outcomes stay). */
function prunedBodiesNote(events: ResourceView['inboxEvents']): string {
  const pruned = events.filter((e) => e.bodyPrunedAt !== null).length;
  if (pruned === 0) return '';
  return `\n${pruned} of these events had their raw body pruned by retention (docs/retention.md); their ids, types and outcomes are kept.`;
}
