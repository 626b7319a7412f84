import { describe, expect, it } from 'vitest';
import type { DiscrepancySummary } from '../../src/ledger/index.ts';
import { BREAK_WORDING, describeBreak } from '../../src/reports/index.ts';

/** Issue 40.6: every reason a report gives for BREAKS names the command that fixes it. */
function discrepancy(kind: string): DiscrepancySummary {
  return {
    id: 7,
    kind,
    resourceKind: 'transfer',
    resourceId: 'tr_0123456789abcdef01234567',
    detail: { account: 'service:transfer', amount: 5, currency: 'XOF' },
    rawBody: null,
    inboxId: 42,
    dedupeKey: kind,
    createdAt: '2026-11-21T10:00:00.000Z',
    resolvedAt: null,
  };
}

describe('every break names a paysync command', () => {
  it.each([...Object.keys(BREAK_WORDING), 'teleported'])('%s', (kind) => {
    expect(describeBreak(discrepancy(kind)).action).toMatch(
      /\bpaysync (show|adjust|replay|receipts|balances|backfill|expect)\b/,
    );
  });

  it('an unknown webhook resource names the event to replay', () => {
    expect(describeBreak(discrepancy('unknown_upstream_resource')).action).toContain(
      'paysync replay 42',
    );
  });
});
