import BetterSqlite3 from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../support/run-cli.ts';
import { until } from '../support/until.ts';

const MAIN = new URL('../../src/cli/main.ts', import.meta.url);
const BIN = new URL('../../bin/paysync.js', import.meta.url);

/** Starts `paysync sim` and resolves with its stdout once the env lines are printed. */
function startCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; ready: Promise<string> } {
  const child = spawn(process.execPath, [BIN.pathname, 'sim', ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('PAYSYNC_WEBHOOK_SECRET=')) resolve(out);
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`paysync sim exited with ${code}: ${err}`)));
  });
  return { child, ready };
}

function valueOf(output: string, name: string): string {
  const line = output.split('\n').find((l) => l.startsWith(`${name}=`));
  return line?.slice(name.length + 1) ?? '';
}

describe.skipIf(!existsSync(MAIN))('paysync sim (child process)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('starts with no database and no Redis, prints the URL and working credentials, and stops on SIGTERM', async () => {
    // What kept the start quick: the sim opens neither the database nor Redis, so an unusable
    // URL for each must not stop it or make it wait.
    const cli = startCli(['--port', '0'], {
      PAYSYNC_DATABASE_URL: 'not a url',
      PAYSYNC_REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
    });
    child = cli.child;
    const output = await cli.ready;
    // Only the .env block names them (echoing the environment); nothing tried to open them.
    const said = output.split('\n').filter((line) => !line.startsWith('PAYSYNC_'));
    expect(said.join('\n')).not.toMatch(/redis|database/i);

    const url = valueOf(output, 'PAYSYNC_UPSTREAM_URL');
    const apiKey = valueOf(output, 'PAYSYNC_API_KEY');
    const merchantId = valueOf(output, 'PAYSYNC_MERCHANT_ID');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(apiKey).toMatch(/^sk_sandbox_/);
    expect(valueOf(output, 'PAYSYNC_WEBHOOK_SECRET')).toMatch(/^whsec_/);

    const ok = await fetch(`${url}/balance`, {
      headers: { ApiKey: apiKey, MerchantId: merchantId, Environment: 'sandbox' },
    });
    expect(ok.status).toBe(200);
    const wrong = await fetch(`${url}/balance`, {
      headers: { ApiKey: 'x', MerchantId: merchantId, Environment: 'sandbox' },
    });
    expect(wrong.status).toBe(401);

    const exited = new Promise<number | null>((resolve) => cli.child.on('exit', resolve));
    cli.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('accepts the daemon credentials from PAYSYNC_API_KEY and PAYSYNC_MERCHANT_ID without echoing the key', async () => {
    const cli = startCli(['--port', '0', '--rps', '3'], {
      PAYSYNC_API_KEY: 'sk_my_own_secret_key_123',
      PAYSYNC_MERCHANT_ID: 'mch_mine',
    });
    child = cli.child;
    const output = await cli.ready;
    expect(output).not.toContain('sk_my_own_secret_key_123');
    expect(valueOf(output, 'PAYSYNC_MERCHANT_ID')).toBe('mch_mine');
    const url = valueOf(output, 'PAYSYNC_UPSTREAM_URL');
    const headers = {
      ApiKey: 'sk_my_own_secret_key_123',
      MerchantId: 'mch_mine',
      Environment: 'sandbox',
    };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => fetch(`${url}/balance`, { headers })),
    );
    // The key is taken (200s, no 401) and --rps holds (429s). How many of the six pass depends
    // on how far apart they arrive: three in the same second, one more per third of a second
    // the burst takes on a busy machine; never all six, never fewer than three.
    const statuses = answers.map((a) => a.status);
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(3);
  });

  it('prints a complete .env block, the register line and the dashboard; --history seeds, --traffic trades', async () => {
    const cli = startCli(['--port', '0', '--history', '1', '--traffic', '120'], {});
    child = cli.child;
    const output = await cli.ready;
    // Issue 40.1: everything the daemon needs, not five lines and a 78-row table.
    const block = output.slice(output.indexOf('# paysync .env'), output.indexOf('\n\nThen'));
    const names = block
      .split('\n')
      .filter((line) => line.startsWith('PAYSYNC_'))
      .map((line) => line.slice(0, line.indexOf('=')));
    expect(names).toEqual([
      'PAYSYNC_UPSTREAM_URL',
      'PAYSYNC_API_KEY',
      'PAYSYNC_MERCHANT_ID',
      'PAYSYNC_ENVIRONMENT',
      'PAYSYNC_WEBHOOK_SECRET',
      'PAYSYNC_DATABASE_URL',
      'PAYSYNC_REDIS_URL',
      'PAYSYNC_PORT',
      'PAYSYNC_OPS_PORT',
      'PAYSYNC_ADMIN_TOKEN',
      'PAYSYNC_BOOKS_TIMEZONE',
      'PAYSYNC_EXPORT_FORMATS',
    ]);
    expect(valueOf(output, 'PAYSYNC_DATABASE_URL')).toBe('sqlite:./data/paysync.db');
    expect(valueOf(output, 'PAYSYNC_PORT')).toBe('8080');
    expect(valueOf(output, 'PAYSYNC_ADMIN_TOKEN')).toMatch(/^[0-9a-f]{64}$/);
    expect(output).toContain(
      '  npx paysync webhooks register --url http://127.0.0.1:8080/webhooks',
    );
    expect(output).toContain('The dashboard: http://127.0.0.1:9465/');

    const url = valueOf(output, 'PAYSYNC_UPSTREAM_URL');
    const truth = async () =>
      (await (await fetch(`${url}/__sim/ground-truth`)).json()) as {
        items: { kind: string; status: string; resource: { createdAt: string } }[];
      };
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const seeded = (await truth()).items.filter((i) => i.resource.createdAt.startsWith(yesterday));
    expect(seeded.filter((i) => i.kind === 'transfer')).toHaveLength(24);
    expect(seeded.filter((i) => i.kind === 'payment_intent')).toHaveLength(24);
    expect(seeded.every((i) => ['successful', 'failed'].includes(i.status))).toBe(true);
    expect(output).toContain('history: 48 transfers and 48 payments from ');
    // 120 a minute: one of each every half second, created now.
    await until(
      async () =>
        (await truth()).items.filter((i) => Date.parse(i.resource.createdAt) > Date.now() - 60_000)
          .length >= 2,
      { message: '--traffic created items', timeoutMs: 20_000 },
    );
  });

  it('.env.example holds the ten settings that matter first, each a real variable', async () => {
    const { readFileSync } = await import('node:fs');
    const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    const names = example
      .split('\n')
      .filter((line) => /^PAYSYNC_/.test(line))
      .map((line) => line.slice(0, line.indexOf('=')));
    expect(names).toHaveLength(10);
    const configuration = readFileSync(
      new URL('../../docs/configuration.md', import.meta.url),
      'utf8',
    );
    for (const name of names) expect(configuration).toContain(`| \`${name}\``);
  });

  it('refuses a bad --port with a one-line reason and exit code 2', async () => {
    const cli = startCli(['--port', 'eighty'], {});
    child = cli.child;
    const exited = await new Promise<number | null>((resolve) => cli.child.on('exit', resolve));
    expect(exited).toBe(2);
    await expect(cli.ready).rejects.toThrow(/--port must be a whole number/);
  });

  it.each([
    [['--settled-in-memory', 'soon'], /--settled-in-memory must be a whole number of seconds/],
    [
      ['--cold-store', '/no/such/folder/cold.sqlite'],
      /--cold-store: folder \/no\/such\/folder does not exist/,
    ],
  ])('refuses %j with a one-line reason and exit code 2', async (args, reason) => {
    const cli = startCli(args, {});
    child = cli.child;
    const exited = await new Promise<number | null>((resolve) => cli.child.on('exit', resolve));
    expect(exited).toBe(2);
    await expect(cli.ready).rejects.toThrow(reason);
  });

  it('keeps moved-out items in the --cold-store file while it runs and serves them from there', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'paysync-sim-cli-'));
    const file = join(folder, 'cold.sqlite');
    const cli = startCli(['--port', '0', '--settled-in-memory', '0', '--cold-store', file], {});
    child = cli.child;
    const output = await cli.ready;
    const url = valueOf(output, 'PAYSYNC_UPSTREAM_URL');
    const seeded = (await (
      await fetch(`${url}/__sim/seed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'transfer', count: 5, settle: true }),
      })
    ).json()) as { ids: string[] };
    const moved = (await (await fetch(`${url}/__sim/move-out`, { method: 'POST' })).json()) as {
      items: number;
    };
    expect(moved.items).toBe(5);
    expect(statSync(file).size).toBeGreaterThan(0);
    const truth = (await (await fetch(`${url}/__sim/ground-truth`)).json()) as {
      items: { id: string }[];
    };
    expect(truth.items.map((item) => item.id)).toEqual(seeded.ids);
    cli.child.kill('SIGTERM');
    await new Promise((resolve) => cli.child.on('exit', resolve));
    // A file holding anything else is refused, untouched.
    const other = join(folder, 'other.sqlite');
    const db = new BetterSqlite3(other);
    db.exec('CREATE TABLE ledger_lines (id INTEGER); INSERT INTO ledger_lines VALUES (1)');
    db.close();
    const refused = startCli(['--port', '0', '--cold-store', other], {});
    child = refused.child;
    const exited = await new Promise<number | null>((resolve) => refused.child.on('exit', resolve));
    expect(exited).not.toBe(0);
    await expect(refused.ready).rejects.toThrow(/holds other tables \(ledger_lines\)/);
    const again = new BetterSqlite3(other);
    expect(again.prepare('SELECT count(*) FROM ledger_lines').pluck().get()).toBe(1);
    again.close();
    rmSync(folder, { recursive: true, force: true });
  });
});
