import type { MirrorRecord } from '../../ledger/index.ts';
import type { ListKind } from '../input/list-kind.ts';
import { formatAmount } from './format-amount.ts';
import { formatTime } from './format-time.ts';
import { renderTable, type TableColumn } from './render-table.ts';

function statusCell(record: MirrorRecord): string {
  return record.status === record.upstreamStatus
    ? record.status
    : `${record.status} (service says ${record.upstreamStatus})`;
}

const common = {
  id: { header: 'ID', value: (r) => r.id },
  status: { header: 'STATUS', value: statusCell },
  minor: {
    header: 'AMOUNT (minor units)',
    value: (r) => `${r.amount} ${r.currency}`,
    align: 'right',
  },
  human: { header: 'AMOUNT', value: (r) => formatAmount(r.amount, r.currency), align: 'right' },
  updated: { header: 'UPDATED (UTC)', value: (r) => formatTime(r.updatedAt) },
  failure: { header: 'FAILURE', value: (r) => r.failureCode ?? '' },
} satisfies Record<string, TableColumn<MirrorRecord>>;

const extra: Record<ListKind, TableColumn<MirrorRecord>[]> = {
  intents: [
    {
      header: 'PURCHASE REF',
      value: (r) => (r.kind === 'payment_intent' ? r.purchaseReference : ''),
    },
  ],
  transfers: [{ header: 'REFERENCE', value: (r) => (r.kind === 'transfer' ? r.reference : '') }],
  refunds: [
    { header: 'KIND', value: (r) => r.kind },
    {
      header: 'OF',
      value: (r) =>
        r.kind === 'refund' || r.kind === 'payment_refund' ? (r.originalId ?? '') : '',
    },
  ],
};

/** The table `paysync list <kind>` prints: one row per mirrored resource. */
export function renderResourceList(kind: ListKind, records: readonly MirrorRecord[]): string {
  const [first, ...rest] = extra[kind];
  const columns: TableColumn<MirrorRecord>[] = [
    common.id,
    ...(first ? [first] : []),
    common.status,
    common.minor,
    common.human,
    common.updated,
    ...rest,
    common.failure,
  ];
  return renderTable(columns, records);
}

/** A record as `list --json` prints it: everything but the service's raw JSON (see `show`). */
export function listedRecord(record: MirrorRecord): Omit<MirrorRecord, 'raw'> {
  const { raw: _raw, ...rest } = record;
  return rest;
}
