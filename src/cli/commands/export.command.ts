import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ExportFormat, ExportProgress } from '../../exports/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { parseTime, TIME_FORMS } from '../input/parse-time.ts';
import { printJson, sayError } from '../output.ts';

const FORMATS = ['csv', 'jsonl', 'hledger', 'beancount'] as const;
const KINDS = [
  'payment_intent',
  'transfer',
  'refund',
  'payment_refund',
  'opening_balance',
  'adjustment',
] as const;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * On a terminal, a progress bar on stderr: the share of the window's time read so far, lines,
 * rate and ETA (unless the export itself goes to that terminal). Elsewhere, nothing.
 */
async function exportProgress(
  window: { from: string; to: string },
  toTerminal: boolean,
): Promise<{ onProgress?: (progress: ExportProgress) => void; stop: (done: boolean) => void }> {
  if (!process.stderr.isTTY || toTerminal) return { stop: () => undefined };
  const { default: cliProgress } = await import('cli-progress');
  const from = Date.parse(window.from);
  const span = Math.max(1, Date.parse(window.to) - from);
  const startedAt = Date.now();
  const bar = new cliProgress.SingleBar(
    {
      format:
        'export [{bar}] {percentage}% of the window | {rows} lines | {rate} lines/s | at {at} | ETA {eta_formatted}',
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(span, 0, { rows: 0, rate: 0, at: window.from });
  return {
    onProgress({ rows, effectiveAt }) {
      const seconds = Math.max(0.001, (Date.now() - startedAt) / 1000);
      bar.update(Math.min(span, Date.parse(effectiveAt) - from), {
        rows,
        rate: Math.round(rows / seconds),
        at: effectiveAt,
      });
    },
    stop(done) {
      if (done) bar.update(span);
      bar.stop();
    },
  };
}

/**
 * A window edge as typed: checked now (so commander names the flag on a bad value), turned into
 * an instant in the action, where the books' zone is known: a date is that day's midnight there.
 */
function edge(flag: '--from' | '--to'): (value: string) => string {
  return (value) => {
    parseTime(value, flag, cliClock());
    return value.trim();
  };
}

function choice<T extends string>(flag: string, values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`${flag} "${value}" is not one of ${values.join(', ')}`);
    }
    return value as T;
  };
}

interface ExportFlags {
  from: string;
  to: string;
  format: ExportFormat;
  out?: string;
  environment?: 'live' | 'sandbox';
  kind?: string[];
  json?: boolean;
}

/** `paysync export`: the books of a window in an accounting format, streamed. */
export function exportCommand(): Command {
  return new Command('export')
    .description(
      'write the books of a window as CSV, JSONL, an hledger journal or a beancount file',
    )
    .addOption(
      new Option(
        '--from <time>',
        `start, inclusive: ${TIME_FORMS}; a date is midnight in PAYSYNC_BOOKS_TIMEZONE`,
      )
        .makeOptionMandatory()
        .argParser(edge('--from')),
    )
    .addOption(
      new Option('--to <time>', 'end, exclusive: same forms as --from')
        .makeOptionMandatory()
        .argParser(edge('--to')),
    )
    .addOption(
      new Option('--format <format>', `one of ${FORMATS.join(', ')}`)
        .default('csv')
        .argParser(choice('--format', FORMATS)),
    )
    .option('--out <file>', 'where to write; - for standard output (default)')
    .addOption(
      new Option('--environment <env>', 'live or sandbox (default: PAYSYNC_ENVIRONMENT)').argParser(
        choice('--environment', ['live', 'sandbox'] as const),
      ),
    )
    .addOption(
      new Option(
        '--kind <kind...>',
        `csv and jsonl only: journals of these kinds (${KINDS.join(', ')})`,
      ).argParser((value: string, previous: string[] | undefined) => [
        ...(previous ?? []),
        choice('--kind', KINDS)(value),
      ]),
    )
    .option('--json', 'with --out: print one JSON document about the file written')
    .addHelpText(
      'after',
      `
The window is [from, to) on each journal's effective time. Columns and mappings: docs/exports.md.

Examples:
  $ paysync export --from 2026-11-01 --to 2026-12-01 > november.csv
  $ paysync export --from 2026-11-01 --to 2026-12-01 --format hledger --out nov.journal
  $ paysync export --from 2026-11-20 --to 2026-11-21 --format jsonl --kind transfer | jq .
  $ paysync export --from 2026-11-01 --to 2026-12-01 --out nov.csv --json | jq -r .sha256

--json needs --out <file> (the export itself would fill stdout) and prints {"file", "format",
"environment", "window": {"from", "to"}, "rows", "journals" (null for a frozen file), "sha256",
"frozenFile": <the closed month's frozen file>|null} on stdout instead of the note on stderr;
a failure is still one line on stderr. Exit codes: 0 written, 1 the database or the file
failed, 2 bad arguments (--json without --out) or config.`,
    )
    .action(async (flags: ExportFlags, invoked: Command) => {
      if (flags.json && (flags.out === undefined || flags.out === '-')) {
        throw new CliError(
          'export: --json prints a summary on stdout, so the export itself needs --out <file>',
          ExitCode.usage,
        );
      }
      const config = await cliConfig(invoked);
      const { startOfDay } = await import('../../books-calendar/index.ts');
      const timeZone = config.books.timeZone;
      const instant = (value: string, flag: string) =>
        DATE_ONLY.test(value)
          ? startOfDay(value, timeZone).toISOString()
          : parseTime(value, flag, cliClock()).toISOString();
      const window = { from: instant(flags.from, '--from'), to: instant(flags.to, '--to') };
      if (window.from >= window.to) {
        throw new CliError(
          `export: --to ${flags.to} (${window.to}) is not after --from ${flags.from} (${window.from}): the window [from, to) is empty; give a later --to`,
          ExitCode.usage,
        );
      }
      if (flags.kind && (flags.format === 'hledger' || flags.format === 'beancount')) {
        throw new CliError(
          `export: --kind works with --format csv or jsonl only: an ${flags.format} file needs every journal for its balances to hold`,
          ExitCode.usage,
        );
      }
      const exportsModule = await import('../../exports/index.ts');
      const { writeExport } = exportsModule;
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const handle = await openLedgerDatabase(config, 'export');
      const toFile = flags.out !== undefined && flags.out !== '-';
      const target = toFile ? resolve(flags.out!) : undefined;
      const temporary = target ? `${target}.partial-${process.pid}` : undefined;
      try {
        if (temporary) {
          // The export names customers and amounts: 0600 whatever the umask (docs/exports.md).
          const { createPrivateFile } = await import('../../private-files.ts');
          await rm(temporary, { force: true });
          createPrivateFile(temporary);
        }
        const output = temporary ? createWriteStream(temporary, { flags: 'r+' }) : process.stdout;
        const environment = flags.environment ?? config.environment;
        // A closed month is frozen: its recorded file, byte for byte.
        const frozen = flags.kind
          ? undefined
          : await exportsModule.frozenExport(handle.db, {
              environment,
              window,
              format: flags.format,
            });
        // What --json prints: the file written, the window, and what is in it.
        const summary = (
          rows: number,
          journals: number | null,
          sha256: string,
          frozenFile: string | null,
        ) => ({
          file: target,
          format: flags.format,
          environment,
          window,
          rows,
          journals,
          sha256,
          frozenFile,
        });
        if (frozen) {
          await pipeline(Readable.from([frozen.content]), output);
          if (temporary && target) await rename(temporary, target);
          if (flags.json && target) {
            printJson(summary(frozen.frozen.rows, null, frozen.frozen.sha256, frozen.frozen.file));
            return;
          }
          sayError(
            `export: closed period, frozen file ${frozen.frozen.file} (${frozen.frozen.rows} lines, sha256 ${frozen.frozen.sha256})${target ? ` copied to ${target}` : ''}`,
          );
          return;
        }
        const progress = await exportProgress(window, !toFile && process.stdout.isTTY);
        let result;
        let done = false;
        try {
          result = await writeExport(
            {
              db: handle.db,
              format: flags.format,
              window,
              environment,
              timeZone,
              ...(flags.kind ? { kinds: flags.kind } : {}),
              ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
            },
            output,
          );
          done = true;
        } finally {
          progress.stop(done);
        }
        if (temporary && target) await rename(temporary, target);
        if (flags.json && target) {
          printJson(summary(result.rows, result.journals, result.sha256, null));
        } else if (target) {
          sayError(
            `export: ${result.rows} lines of ${result.journals} journals written to ${target} (sha256 ${result.sha256})`,
          );
        }
      } catch (error) {
        // A failed export leaves nothing behind: the target was never touched, and the partial
        // file goes.
        if (temporary) await rm(temporary, { force: true });
        throw error;
      } finally {
        await handle.close().catch(() => undefined);
      }
    });
}
