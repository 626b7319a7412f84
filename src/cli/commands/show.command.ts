import { Command, InvalidArgumentError } from 'commander';
import type { DatabaseHandle } from '../../db/index.ts';
import { CliError } from '../errors.ts';
import { cliConfig } from '../context.ts';
import { say, printJson } from '../output.ts';

const RESOURCE_ID =
  /^(pi_[0-9A-Za-z]+|tr_[0-9A-Za-z]+|adj_[0-9a-f]+|\d+|(refund|payment_refund):\d+)$/;

function resourceId(value: string): string {
  const id = value.trim();
  if (!RESOURCE_ID.test(id)) {
    throw new InvalidArgumentError(
      `"${value}" is not a resource id: use pi_…, tr_…, adj_… (an adjustment), or a refund id (123, or refund:123 / payment_refund:123 when both kinds have it)`,
    );
  }
  return id;
}

/** `paysync show <id>`: one resource with its history, journal lines and inbox events. */
export function showCommand(): Command {
  return new Command('show')
    .description(
      'show one resource: mirror row, its refunds and reversals, status history, journal lines, inbox events',
    )
    .argument('<id>', 'pi_…, tr_…, or a refund id', resourceId)
    .option(
      '--json',
      'print JSON: {record, history, journals, discrepancies, inboxEvents, refunds, reversals, refundOf}',
    )
    .option(
      '--reveal',
      'print phone and account numbers in full (masked by default, as alerts and the dashboard mask them); do not paste the output into tickets or chat',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ paysync show tr_8Kq2Xw7LmN3pR5tV9yB1cD4f     a transfer; a failed one says why and that nothing was booked
  $ paysync show pi_3Hj6Tn1QwE8rY2uI5oP7aS9d --json | jq '.journals[].lines'
  $ paysync show 1002                             a refund (of a transfer, else of a payment)
  $ paysync show tr_8Kq2Xw7LmN3pR5tV9yB1cD4f --reveal   the recipient's full number

A transfer or payment intent lists every refund of it and every reversal of its settlement
(id, amount, status, when booked); a refund names the item it refunds. Phone and account
numbers are masked as in alerts and on the dashboard (+22177•••••34), in the text and in
--json; --reveal prints them in full, for checking one number with its owner: keep that
output out of tickets, chat and screenshots.

Amounts are integers in the currency's smallest unit, with the human form beside them; times
are UTC. Reads PAYSYNC_DATABASE_URL. Exit codes: 0 shown, 1 no such resource in the database
(or it cannot be read), 2 not an id.`,
    )
    .action(async (id: string, flags: { json?: boolean; reveal?: boolean }, invoked: Command) => {
      const config = await cliConfig(invoked);
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const { findResource } = await import('../../resource-view/index.ts');
      const handle = await openLedgerDatabase(config, 'show');
      if (id.startsWith('adj_')) {
        await showAdjustment(handle, id, flags.json === true);
        return;
      }
      let view;
      try {
        view = await findResource(handle.db, id);
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (!view) {
        throw new CliError(
          `show: no payment intent, transfer or refund with id ${id} in ${handle.displayUrl}; run \`paysync sweep\` or check the id`,
        );
      }
      if (flags.reveal !== true) {
        const { maskResourceView } = await import('../format/mask-resource-view.ts');
        view = maskResourceView(view);
      }
      if (flags.json) {
        printJson(view);
        return;
      }
      const { renderResourceView } = await import('../format/render-resource-view.ts');
      say(renderResourceView(view));
    });
}

/** An adjustment: who booked how much on which account, why, and its journal. */
async function showAdjustment(handle: DatabaseHandle, id: string, json: boolean): Promise<void> {
  const { findAdjustment, journalsFor } = await import('../../ledger/index.ts');
  try {
    const adjustment = await findAdjustment(handle.db, id);
    if (!adjustment) {
      throw new CliError(
        `show: no adjustment ${id} in ${handle.displayUrl}; see \`paysync adjust --help\``,
      );
    }
    const journals = await journalsFor(handle.db, 'adjustment', id);
    if (json) {
      printJson({ adjustment, journals });
      return;
    }
    const { formatAmount } = await import('../format/format-amount.ts');
    say(
      [
        `Adjustment ${id}: ${adjustment.account} ${formatAmount(adjustment.amount, adjustment.currency)} against ${adjustment.counterAccount}`,
        `Reason: ${adjustment.reason}`,
        `Booked by ${adjustment.bookedBy} at ${adjustment.createdAt}, effective ${adjustment.effectiveAt}`,
        ...journals.flatMap((journal) => [
          `Journal ${journal.id} (${journal.entryType}):`,
          ...journal.lines.map(
            (line) => `  ${line.account.padEnd(28)} ${formatAmount(line.amount, line.currency)}`,
          ),
        ]),
      ].join('\n'),
    );
  } finally {
    await handle.close().catch(() => undefined);
  }
}
