import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYSYNC_BIN } from '../support/run-cli.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

// Issue 39: each `paysync` loads what its command needs. `--help` and the read commands never
// load the HTTP servers, the queues, the dashboard or the simulator: the process runs with
// module hooks (test/support/import-recorder) that write every module it resolves to a file.

const RECORDER = resolve(import.meta.dirname, '../support/import-recorder/register.mjs');
const ROOT = resolve(import.meta.dirname, '../..');

/** What a read command must never load, each with a pattern of its resolved URL. */
const HEAVY = {
  express: /\/node_modules\/express\//,
  bullmq: /\/node_modules\/bullmq\//,
  '@bull-board/*': /\/node_modules\/@bull-board\//,
  'src/sim': new RegExp(`^file://${ROOT}/(src|dist/src)/sim/`),
};

/** A migration module (migrations/0001_….ts), and the list of their names (migrations/names.ts). */
const MIGRATION_MODULE = new RegExp(`^file://${ROOT}/(dist/)?migrations/(\\d{4}_|index\\.)`);
const MIGRATION_NAMES_MODULE = new RegExp(`^file://${ROOT}/(dist/)?migrations/names\\.(ts|js)$`);

/** The payment service's client: src/upstream/ but its contract (the schemas). */
const UPSTREAM_CLIENT = new RegExp(`^file://${ROOT}/(dist/)?src/upstream/(?!contract/)`);

let database: TestDatabase;
const folder = mkdtempSync(join(tmpdir(), 'paysync-loading-'));
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.cleanup();
  rmSync(folder, { recursive: true, force: true });
});

/** Runs `paysync <args>` with the recorder; its exit code and every module URL it resolved. */
function loadedBy(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; modules: string[] }> {
  const file = join(folder, `${args.join('_').replace(/\W/g, '-')}.txt`);
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', RECORDER, PAYSYNC_BIN, ...args],
      {
        cwd: folder,
        env: { PATH: process.env.PATH ?? '', PAYSYNC_TEST_IMPORTS_FILE: file, ...env },
        timeout: 60_000,
      },
      (error) => {
        let modules: string[] = [];
        try {
          modules = readFileSync(file, 'utf8').split('\n').filter(Boolean);
        } catch {
          // nothing recorded: the assertions below say so
        }
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, modules });
      },
    );
  });
}

const heavyIn = (modules: readonly string[]) =>
  Object.entries(HEAVY)
    .filter(([, pattern]) => modules.some((url) => pattern.test(url)))
    .map(([name]) => name);

describe('issue 39: the CLI loads what its command needs', () => {
  it.each([
    [['--help'], 0],
    [['show', 'tr_8Kq2Xw7LmN3pR5tV9yB1cD4f'], 1],
    [['list', 'transfers'], 0],
    [['runs'], 0],
    [['report', '--date', '2030-01-02'], 4],
    [['balances', '--cached'], 1],
    [['expect', 'list'], 0],
  ] as const)(
    '`paysync %s` loads neither Express, BullMQ, Bull Board nor the simulator',
    async (args, code) => {
      const result = await loadedBy(args, { PAYSYNC_DATABASE_URL: database.url });
      expect(result.code).toBe(code);
      // The recorder saw the CLI itself, so an empty list cannot pass.
      expect(result.modules.some((url) => /\/cli\/program\.(ts|js)$/.test(url))).toBe(true);
      expect(heavyIn(result.modules)).toEqual([]);
    },
  );

  it.each([
    [['show', 'tr_8Kq2Xw7LmN3pR5tV9yB1cD4f'], 1],
    [['list', 'transfers'], 0],
  ] as const)(
    '`paysync %s` checks for pending migrations by name, loading no migration module, nor the settings-file and .env parsers (there are none to read)',
    async (args, code) => {
      const result = await loadedBy(args, { PAYSYNC_DATABASE_URL: database.url });
      expect(result.code).toBe(code);
      // It did check the schema: the module that lists the migrations' names was loaded.
      expect(result.modules.some((url) => MIGRATION_NAMES_MODULE.test(url))).toBe(true);
      expect(result.modules.filter((url) => MIGRATION_MODULE.test(url))).toEqual([]);
      expect(result.modules.filter((url) => /\/node_modules\/(yaml|dotenv)\//.test(url))).toEqual(
        [],
      );
    },
  );

  it.each([
    [['show', 'tr_8Kq2Xw7LmN3pR5tV9yB1cD4f'], 1, ['ledger/resource-reads', 'inbox/resource-reads']],
    [['list', 'transfers', '--status', 'successful'], 0, ['ledger/resource-reads']],
  ] as const)(
    '`paysync %s` reads the ledger (and the inbox) through light entries, not their index.ts, and loads no upstream client',
    async (args, code, entries) => {
      const result = await loadedBy(args, { PAYSYNC_DATABASE_URL: database.url });
      expect(result.code).toBe(code);
      const component = (url: string) =>
        /\/(?:dist\/)?src\/(ledger|inbox)\/([^/]+)\.(?:ts|js)$/.exec(url)?.slice(1).join('/');
      const loaded = new Set(result.modules.map(component).filter(Boolean));
      for (const entry of entries) expect(loaded).toContain(entry);
      // index.ts loads the syncs' apply code and the intake; neither command needs them.
      expect([...loaded].filter((name) => /\/(index|apply-.*|inbox-intake)$/.test(name!))).toEqual(
        [],
      );
      // The statuses `list --status` accepts come from the service's contract, not its client.
      expect(result.modules.filter((url) => UPSTREAM_CLIENT.test(url))).toEqual([]);
    },
  );

  it.each([
    [['show', 'tr_8Kq2Xw7LmN3pR5tV9yB1cD4f'], 1, 'show'],
    [['list', 'transfers'], 0, 'list'],
  ] as const)('`paysync %s` loads its own command module, no other', async (args, code, own) => {
    const result = await loadedBy(args, { PAYSYNC_DATABASE_URL: database.url });
    expect(result.code).toBe(code);
    const commands = result.modules
      .map((url) => /\/cli\/commands\/([^/]+)\.command\.(?:ts|js)$/.exec(url)?.[1])
      .filter(Boolean);
    expect([...new Set(commands)]).toEqual([own]);
  });

  it('`paysync --help` loads neither the config (zod) nor the database (kysely)', async () => {
    const result = await loadedBy(['--help'], {});
    expect(result.code).toBe(0);
    expect(result.modules.filter((url) => /\/node_modules\/(zod|kysely)\//.test(url))).toEqual([]);
  });

  it('the recorder does see them where a command needs them: `paysync serve`', async () => {
    // serve on an unusable database loads the receiver and the queues, then stops with exit 1.
    const result = await loadedBy(['serve'], {
      PAYSYNC_DATABASE_URL: 'sqlite:/proc/version/x.db',
      PAYSYNC_WEBHOOK_SCHEME: 'none',
    });
    expect(result.code).toBe(1);
    expect(heavyIn(result.modules)).toEqual(expect.arrayContaining(['express', 'bullmq']));
  });
});
