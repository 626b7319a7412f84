import type { JournalLine, MirrorRecord } from '../../ledger/index.ts';
import type { ResourceView } from '../../resource-view/index.ts';
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

function recordFields(record: MirrorRecord): string {
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
      ['refund of', record.originalId],
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

/** Why a resource ended where it did, in words an operator can act on. */
function explanation(view: ResourceView): string[] {
  const { record } = view;
  if (record.status === 'failed') {
    const cause = record.failureCode
      ? `${record.failureCode}${record.failureMessage ? ` (${record.failureMessage})` : ''}`
      : 'the service gave no failure cause';
    const lines = [`It failed: ${cause}.`];
    lines.push(
      view.journals.length === 0
        ? NOTHING_BOOKED[record.kind]
        : 'Journals are on file for it: a settlement was booked earlier and reversed (see below).',
    );
    return lines;
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
    `${KIND_NAMES[record.kind]} ${record.id}: ${record.status}\n${indent(recordFields(record))}`,
  );
  blocks.push(`Why\n${indent(explanation(view).join('\n'))}`);
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
          ) + prunedBodiesNote(view.inboxEvents),
    ),
  );
  return blocks.join('\n\n');
}

/** Under the inbox table: how many bodies retention pruned (their rows and outcomes stay). */
function prunedBodiesNote(events: ResourceView['inboxEvents']): string {
  const pruned = events.filter((e) => e.bodyPrunedAt !== null).length;
  if (pruned === 0) return '';
  return `\n${pruned} of these events had their raw body pruned by retention (docs/retention.md); their ids, types and outcomes are kept.`;
}
