import { describe, expect, it } from 'vitest';
import type { DiscrepancySummary } from '../../src/ledger/index.ts';
import { BREAK_WORDING, describeBreak } from '../../src/reports/index.ts';

function discrepancy(
  kind: string,
  detail: Record<string, unknown>,
  resourceId = 'tr_0123456789abcdef01234567',
): DiscrepancySummary {
  return {
    id: 7,
    kind,
    resourceKind: 'transfer',
    resourceId,
    detail,
    rawBody: null,
    inboxId: null,
    dedupeKey: kind,
    createdAt: '2026-11-21T10:00:00.000Z',
    resolvedAt: null,
  };
}

const cases: [string, Record<string, unknown>, string, string][] = [
  [
    'settlement_reversed',
    { reversed: 'settlement-1', by: 'reversal-1', status: 'failed' },
    'tr_0123456789abcdef01234567 failed after it was booked as successful: a reversal was booked',
    'confirm with the service and notify the recipient',
  ],
  [
    'status_regression',
    { held: 'successful', upstream: 'pending' },
    'went back from successful to pending at the service; the ledger kept successful',
    'ask the service which status is true',
  ],
  [
    'terminal_status_changed',
    { from: 'failed', to: 'successful' },
    'changed from one final status to another (failed → successful)',
    'confirm the final status with the service',
  ],
  [
    'amount_changed',
    {},
    'changed amount or fees at the service after it was booked',
    'book a correction with paysync adjust',
  ],
  ['same_version_conflict', {}, 'sent twice with the same version', 'report it to the service'],
  [
    'unknown_upstream_resource',
    {},
    'was named in a webhook but the service does not know it',
    'check the webhook sender and the environment',
  ],
  [
    'contract_error',
    { operation: 'getTransfer', message: 'status: invalid enum' },
    'answered getTransfer for tr_0123456789abcdef01234567 in a form paysync cannot read: status: invalid enum',
    'the raw answer is kept',
  ],
  [
    'balance_drift',
    {
      account: 'service:transfer',
      amount: 500000,
      currency: 'XOF',
      asOf: '2026-11-21T10:00:00.000Z',
    },
    'service:transfer differs from the service by 500000 XOF that no item explains',
    'book it with paysync adjust',
  ],
  [
    'stuck',
    { status: 'pending', ageHours: 30 },
    'has been pending for 30 h, past its SLA',
    'paysync keeps polling it daily',
  ],
  [
    'receipt_unavailable',
    {},
    'the receipt of tr_0123456789abcdef01234567 could not be fetched',
    'paysync receipts backfill',
  ],
];

describe('every discrepancy kind has a line that explains it and an action', () => {
  it('covers every worded kind', () => {
    expect(cases.map(([kind]) => kind).sort()).toEqual(Object.keys(BREAK_WORDING).sort());
  });

  it.each(cases)('%s', (kind, detail, line, action) => {
    const wording = describeBreak(discrepancy(kind, detail));
    expect(wording.line).toContain(line);
    expect(wording.action).toContain(action);
  });

  it('gives an unknown kind a generic line that still names the item', () => {
    expect(describeBreak(discrepancy('teleported', {}))).toMatchObject({
      line: 'teleported on tr_0123456789abcdef01234567',
      action: 'inspect it with paysync show tr_0123456789abcdef01234567',
    });
  });
});
