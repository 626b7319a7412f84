import { Command, InvalidArgumentError } from 'commander';
import { CliError } from '../errors.ts';
import { reasonOf } from '../../error-reason.ts';
import { cliConfig } from '../context.ts';
import { printDocument, printJson, say } from '../output.ts';

function receiptBearingId(value: string): string {
  const id = value.trim();
  if (!/^(pi|tr)_[0-9A-Za-z]+$/.test(id)) {
    throw new InvalidArgumentError(
      `"${value}" is not a payment intent or transfer id: use pi_… or tr_… (the service issues receipts for those only)`,
    );
  }
  return id;
}

/** `paysync receipt <id>`: the newest archived receipt of a payment intent or transfer. */
export function receiptCommand(): Command {
  return new Command('receipt')
    .description('write or print the newest archived receipt of a payment intent or transfer')
    .argument('<id>', 'pi_… or tr_…', receiptBearingId)
    .option('--out <file>', 'write the HTML to this file instead of printing it')
    .option(
      '--json',
      'print JSON: {kind, id, newest, versions[]} (with --out, the file is written too)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ paysync receipt tr_8Kq2Xw7LmN3pR5tV9yB1cD4f --out receipt.html
  $ paysync receipt pi_3Hj6Tn1QwE8rY2uI5oP7aS9d --json     every archived version, newest last

The HTML is the service's, stored as received under PAYSYNC_RECEIPTS_DIR; open it only where
a sandboxing Content-Security-Policy applies (docs/receipts.md). Reads PAYSYNC_DATABASE_URL.
Exit codes: 0 written or printed, 1 no receipt (the line says why), 2 not a pi_/tr_ id.`,
    )
    .action(async (id: string, flags: { out?: string; json?: boolean }, invoked: Command) => {
      const config = await cliConfig(invoked);
      const { readFile, writeFile } = await import('node:fs/promises');
      const { resolve } = await import('node:path');
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const receipts = await import('../../receipts/index.ts');
      const kind = receipts.receiptKindOfId(id)!;
      const handle = await openLedgerDatabase(config, 'receipt');
      let versions;
      let missing;
      try {
        versions = await receipts.receiptsFor(handle.db, kind, id);
        if (versions.length === 0)
          missing = await receipts.explainMissingReceipt(handle.db, kind, id);
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (missing) {
        if (flags.json) {
          printJson({ kind, id, newest: null, versions: [], ...missing });
        }
        throw new CliError(`receipt: ${missing.message}`);
      }
      const listed = versions.map((row) => ({
        sha256: row.sha256,
        size: row.size,
        fetchedAt: row.fetched_at,
        path: receipts.receiptFilePath(config.receipts.dir, row.sha256),
      }));
      const newest = listed[listed.length - 1]!;
      let html: Buffer;
      try {
        html = await readFile(newest.path);
      } catch {
        throw new CliError(
          `receipt: the archived file ${newest.path} of ${id} is missing → check PAYSYNC_RECEIPTS_DIR (${resolve(config.receipts.dir)}), or restore the archive`,
        );
      }
      if (flags.out) {
        const target = resolve(flags.out);
        try {
          await writeFile(target, html);
        } catch (error) {
          throw new CliError(`receipt: cannot write --out ${target}: ${reasonOf(error)}`);
        }
        if (!flags.json) {
          say(
            `wrote the receipt of ${id} (sha256 ${newest.sha256}, ${newest.size} bytes, fetched ${newest.fetchedAt}) to ${target}` +
              (listed.length > 1 ? `; ${listed.length} versions archived, see --json` : ''),
          );
        }
      }
      if (flags.json) {
        printJson({ kind, id, newest, versions: listed });
      } else if (!flags.out) {
        printDocument(html);
      }
    });
}
