import { Command, InvalidArgumentError, Option } from 'commander';
import type { ServiceAccountName } from '../../ledger/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { CliError } from '../errors.ts';
import { formatAmount } from '../format/format-amount.ts';
import { timeOption, TIME_FORMS } from '../input/parse-time.ts';
import { operatorName } from './balances.command.ts';
import { say, printJson } from '../output.ts';

const SERVICE_ACCOUNTS = [
  'service:collection',
  'service:transfer',
  'service:transfer-irt',
  'service:cross-border',
];

function serviceAccount(value: string): string {
  const account = value.startsWith('service:') ? value : `service:${value}`;
  if (!SERVICE_ACCOUNTS.includes(account)) {
    throw new InvalidArgumentError(
      `--account "${value}" is not a service account: use one of ${SERVICE_ACCOUNTS.join(', ')}`,
    );
  }
  return account;
}

function minorUnits(value: string): number {
  const text = value.trim();
  const amount = Number(text);
  if (!/^-?\d{1,16}$/.test(text) || !Number.isSafeInteger(amount) || amount === 0) {
    throw new InvalidArgumentError(
      `--amount "${value}" is not a non-zero whole number of minor units (e.g. 500000 for 500,000 XOF, 1250 for 12.50 EUR; negative removes money)`,
    );
  }
  return amount;
}

function currencyCode(value: string): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) {
    throw new InvalidArgumentError(
      `--currency "${value}" is not an ISO 4217 code such as XOF or EUR`,
    );
  }
  return code;
}

function reasonText(value: string): string {
  const text = value.trim();
  if (text.length < 3) {
    throw new InvalidArgumentError(
      '--reason must say why, in a few words (e.g. "top-up from bank")',
    );
  }
  return text;
}

interface AdjustFlags {
  account: string;
  amount: number;
  currency: string;
  reason: string;
  counter?: string;
  at?: Date;
  by?: string;
  json?: boolean;
}

/** `paysync adjust`: books money the service moved without a documented item. */
export function adjustCommand(): Command {
  return new Command('adjust')
    .description('book money the service moved without an item (a top-up, a move, a correction)')
    .requiredOption(
      '--account <account>',
      `the service account: ${SERVICE_ACCOUNTS.join(', ')}`,
      serviceAccount,
    )
    .requiredOption(
      '--amount <minor units>',
      'signed whole minor units: positive adds money to the account',
      minorUnits,
    )
    .requiredOption('--currency <code>', 'ISO 4217 currency, e.g. XOF', currencyCode)
    .requiredOption('--reason <text>', 'why, for the record and the exports', reasonText)
    .option(
      '--counter <account>',
      'the other side: adjustments:<name> (default adjustments:manual)',
    )
    .addOption(
      new Option(
        '--at <time>',
        `when the money moved at the service (default now): ${TIME_FORMS}`,
      ).argParser(timeOption('--at')),
    )
    .option('--by <name>', 'who books it (default: your OS user name)')
    .option('--json', 'print the booked adjustment as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync adjust --account service:transfer --amount 500000 --currency XOF --reason "top-up from bank"
  $ paysync adjust --account transfer-irt --amount -1250 --currency EUR --reason "bank charge" \\
      --counter adjustments:bank-charges --at 2026-11-21T09:30:00Z --by ama

The journal debits the service account (credits it for a negative amount) against the counter
account. It is never edited: to undo one, book the opposite amount. The next balance snapshot
counts it; \`paysync show adj_…\` shows it. Exit codes: 0 booked, 1 database error, 2 bad flags.`,
    )
    .action(async (flags: AdjustFlags, invoked: Command) => {
      const config = await cliConfig(invoked);
      const { adjustmentAccountProblem, bookAdjustment } = await import('../../ledger/index.ts');
      const counter = flags.counter ?? 'adjustments:manual';
      const problem = adjustmentAccountProblem(counter);
      if (problem) throw new CliError(`adjust: --counter "${counter}" ${problem}`, 2);
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const handle = await openLedgerDatabase(config, 'adjust');
      const now = cliClock();
      let booked;
      try {
        booked = await bookAdjustment(handle.db, {
          environment: config.environment,
          account: flags.account as ServiceAccountName,
          counterAccount: counter as `adjustments:${string}`,
          currency: flags.currency,
          amount: flags.amount,
          reason: flags.reason,
          bookedBy: flags.by?.trim() || operatorName(),
          effectiveAt: (flags.at ?? now).toISOString(),
          postedAt: now.toISOString(),
        });
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (flags.json) {
        printJson(booked);
        return;
      }
      say(
        `Booked ${booked.resourceId}: ${booked.account} ${booked.amount > 0 ? '+' : ''}${formatAmount(booked.amount, booked.currency)} against ${booked.counterAccount}, effective ${booked.effectiveAt}, by ${booked.bookedBy}: ${booked.reason}`,
      );
    });
}
