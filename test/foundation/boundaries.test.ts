import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The house rules of issue 7.F (one home per concept, import boundaries) checked on the real
 * tree, so a change that breaks one fails the suite and not only `npm run lint`.
 */
const root = join(import.meta.dirname, '..', '..');
const PRODUCTION = ['src', 'jobs', 'bin'];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs|cjs)$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

function filesMatching(pattern: RegExp, folders = PRODUCTION): string[] {
  return folders
    .flatMap(sourceFiles)
    .filter((file) => pattern.test(readFileSync(join(root, file), 'utf8')))
    .sort();
}

interface CruiseViolation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
}

/** Runs depcruise with the project's rules over `folders` of `cwd`; returns its JSON report. */
async function cruise(cwd: string, folders: readonly string[]) {
  const cli = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const args = ['--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json'];
  // depcruise exits non-zero when it finds violations; the JSON report is printed either way.
  const stdout = await promisify(execFile)(process.execPath, [cli, ...args, ...folders], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    (done) => done.stdout,
    (failed: { stdout?: string }) => failed.stdout ?? '',
  );
  return JSON.parse(stdout) as {
    summary: { violations: CruiseViolation[]; totalCruised: number };
  };
}

/**
 * `npm run lint` runs depcruise over the whole tree (src, jobs, bin, migrations) and fails on
 * any violation; CI runs it before the tests, so the suite does not cruise the tree again. What
 * only the suite checks: that the rules still catch a planted violation and pass its fix.
 */
describe('import boundaries (.dependency-cruiser.cjs; the whole tree is checked by npm run lint)', () => {
  it('refuses a private file of another component and an import up the layers, and accepts an index.ts below', async () => {
    const tree = mkdtempSync(join(tmpdir(), 'paysync-boundaries-'));
    try {
      const files: Record<string, string> = {
        'tsconfig.json': JSON.stringify({
          compilerOptions: { module: 'nodenext', allowImportingTsExtensions: true, noEmit: true },
        }),
        'src/ledger/index.ts': "export { post } from './post.ts';\n",
        'src/ledger/post.ts': 'export const post = 1;\n',
        'src/polling/index.ts': "export { post } from '../ledger/post.ts';\n",
        'src/reports/index.ts': "export { post } from '../ledger/index.ts';\n",
        'src/ledger/late.ts': "export { closed } from '../exports/index.ts';\n",
        'src/exports/index.ts': 'export const closed = 1;\n',
      };
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(dirname(join(tree, file)), { recursive: true });
        writeFileSync(join(tree, file), text);
      }
      const report = await cruise(tree, ['src']);
      expect(report.summary.totalCruised).toBe(6);
      const found = report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
      expect(found.sort()).toEqual([
        'component-private-file: src/polling/index.ts → src/ledger/post.ts',
        'layer-order: ledger: src/ledger/late.ts → src/exports/index.ts',
      ]);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('one home per concept', () => {
  it('names the webhook_inbox table only in src/inbox', () => {
    // The auditor is the one documented exception: it judges the tables independently.
    const outside = filesMatching(/webhook_inbox/).filter(
      (file) => !file.startsWith('src/inbox/') && !file.startsWith('src/audit/'),
    );
    expect(outside).toEqual([]);
  });

  it('makes lint refuse webhook_inbox outside src/inbox, and accept it inside', async () => {
    const eslint = new ESLint({ cwd: root });
    const code = "export const table = 'webhook_inbox';\n";
    const [outside] = await eslint.lintText(code, { filePath: join(root, 'src/ledger/x.ts') });
    const [inside] = await eslint.lintText(code, { filePath: join(root, 'src/inbox/x.ts') });
    expect(outside!.messages.map((m) => m.message)).toContain(
      'only src/inbox names webhook_inbox: add a query there and call it through its index.ts (eslint.config.mjs, TABLE_OWNERS)',
    );
    expect(inside!.messages).toEqual([]);
  });

  // Issue 41: the last second owners. The period log and the mirror are the ledger's alone; the
  // exports log a close and the receipts anti-join the mirror through the ledger's index.ts.
  it.each([
    [
      'src/exports/close-period.ts',
      "await trx.insertInto('period_events').values(row).execute();",
      'period_events',
    ],
    [
      'src/receipts/receipt.repository.ts',
      "await db.selectFrom('payment_intents').select('id').execute();",
      'payment_intents',
    ],
    [
      'src/receipts/receipt.repository.ts',
      "await db.selectFrom('transfers').select('id').execute();",
      'transfers',
    ],
    [
      'src/receipts/receipt.repository.ts',
      "export const mirrorId = eb.ref('transfers.id');",
      'transfers',
    ],
  ])('makes lint refuse in %s: %s, and accept it in src/ledger', async (file, statement, table) => {
    const eslint = new ESLint({ cwd: root });
    const code = `declare const db: any, trx: any, eb: any, row: any;\n${statement}\n`;
    const [outside] = await eslint.lintText(code, { filePath: join(root, file) });
    const [inside] = await eslint.lintText(code, { filePath: join(root, 'src/ledger/x.ts') });
    expect(outside!.messages.map((m) => m.message)).toContain(
      `only src/ledger names ${table}: add a query there and call it through its index.ts (eslint.config.mjs, TABLE_OWNERS)`,
    );
    expect(inside!.messages.filter((m) => m.ruleId === 'no-restricted-syntax')).toEqual([]);
  });

  it('declares the Executor type once, in src/db', () => {
    expect(filesMatching(/\b(type\s+Executor\s*=|interface\s+Executor\b)/)).toEqual([
      'src/db/executor.ts',
    ]);
  });

  it('turns thrown values into reasons only in src/error-reason.ts', () => {
    const inline = filesMatching(/\b(\w+) instanceof Error \?\s*\1\.message/);
    const twins = filesMatching(/function reasonOf\b/);
    expect(inline).toEqual([]);
    expect(twins).toEqual(['src/error-reason.ts']);
  });

  it('writes the mirror tables through the one mirror writer', () => {
    const direct = filesMatching(
      /(insertInto|updateTable)\('(payment_intents|transfers|refunds)'\)/,
    );
    expect(direct).toEqual([]);
  });

  it('keeps the migrations free of live code', () => {
    expect(filesMatching(/from '\.\.\/(src|jobs)\//, ['migrations'])).toEqual([]);
  });
});
