import type { Executor } from '../../../src/db/index.ts';
import { applyTransfer } from '../../../src/ledger/index.ts';
import { transferFixture } from '../../support/resource-fixtures.ts';

/**
 * A reference that tries to rewrite the terminal (issue 38.9): clear the screen, a colour and an
 * OSC 8 link around "payout-42".
 */
export const HOSTILE_REFERENCE =
  'pay\u001b[2J\u001b[31mout\u001b]8;;http://x.invalid\u0007-42\u001b]8;;\u0007';

/** Control characters but newline: what no human line of the CLI may carry (nor a tab). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** Books a successful transfer with that reference and this description, as a webhook would. */
export async function bookHostileTransfer(
  db: Executor,
  id: string,
  description: string,
): Promise<void> {
  await applyTransfer(
    db,
    transferFixture({
      id,
      reference: HOSTILE_REFERENCE,
      description,
      status: 'successful',
      createdAt: '2026-03-04T09:00:00.000Z',
      updatedAt: '2026-03-04T09:01:00.000Z',
    }),
    { via: 'webhook', observedAt: '2026-03-04T09:02:00.000Z' },
  );
}
