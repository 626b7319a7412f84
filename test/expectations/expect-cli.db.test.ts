import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { insertBreak } from './support/expectation-rows.ts';

let database: TestDatabase;
let env: Record<string, string>;
const DOCS = resolve(import.meta.dirname, '../../docs');
const dir = mkdtempSync(join(tmpdir(), 'paysync-expect-cli-'));

/** Every output of every command, to check that no counterparty number is ever printed whole. */
const textOutputs: string[] = [];
/**
 * Runs `paysync expect <args>` in this process (issue 39); `process` runs it as a real child,
 * which a few calls keep to prove the boundary: an import's exit 0 and stdout, a refused file's
 * exit 2 and its lines on stderr, an unknown id's exit 1.
 */
const run = async (args: string[], how: 'in-process' | 'process' = 'in-process') => {
  const result =
    how === 'process'
      ? await runCli(['expect', ...args], { env })
      : await runCliInProcess(['expect', ...args], { env });
  if (!args.includes('--json')) textOutputs.push(result.stdout, result.stderr);
  return result;
};

/** The one stderr line of a refused command. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

beforeAll(async () => {
  database = await freshDatabase();
  // Debug logging: whatever a command logs, a counterparty number must not be in it.
  env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_LOG_LEVEL: 'debug' };
});
afterAll(async () => {
  await database?.cleanup();
});

describe('paysync expect', () => {
  it('--help names every subcommand; each says what it does, where the format is, an example', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    const subs = ['import', 'add', 'cancel', 'list', 'show', 'resolve', 'report'];
    for (const sub of subs) expect(help.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
    for (const sub of subs) {
      const each = await run([sub, '--help']);
      expect(each.code).toBe(0);
      expect(each.stdout).toContain('docs/expectations.md');
      expect(each.stdout).toMatch(/Examples?:\n {2}\$ paysync expect /);
      expect(each.stdout).toContain('Exit codes: 0');
    }
  });

  it('imports the sample CSV; again says 0 created, 0 updated, 8 unchanged', async () => {
    const path = join(DOCS, 'expectations-sample.csv');
    const first = await run(['import', path], 'process');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe(
      `expect import ${path}: 8 created, 0 updated, 0 unchanged; 0 matched`,
    );
    const again = await run(['import', path]);
    expect(again.stdout.trim()).toBe(
      `expect import ${path}: 0 created, 0 updated, 8 unchanged; 0 matched`,
    );
    const jsonl = await run(['import', join(DOCS, 'expectations-sample.jsonl'), '--json']);
    expect(jsonl.code).toBe(0);
    // No progress bar and nothing else: the whole stdout is the JSON document.
    expect(jsonl.stderr).toBe('');
    expect(JSON.parse(jsonl.stdout)).toMatchObject({ created: 5, badCount: 0, loaded: true });
  });

  it('a bad file: exit 2, the bad lines listed, nothing loaded; --partial loads the rest', async () => {
    const path = join(dir, 'orders.csv');
    writeFileSync(
      path,
      [
        'expectation_id,direction,currency,amount,window_from,window_to',
        'cli-1,in,XOF,100,2030-01-10,2030-01-10',
        'cli-2,in,XOF,1.5,2030-01-10,2030-01-10',
        'cli-3,in,XYZ,100,2030-01-10,2030-01-10',
      ].join('\n'),
    );
    const refused = await run(['import', path], 'process');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toEqual([
      `paysync expect import: ${path}: 2 bad rows, nothing loaded (fix them, or load the good rows with --partial):`,
      expect.stringMatching(
        /^ {2}line 3: amount: must be a whole, non-negative number of minor units/,
      ),
      expect.stringMatching(/^ {2}line 4: currency: must be an ISO 4217 code/),
    ]);
    expect((await run(['show', 'cli-1'])).code).toBe(1);

    const dry = await run(['import', path, '--dry-run']);
    // A dry run checks a file for a script: it would be refused, so it fails.
    expect(dry.code).toBe(2);
    expect(dry.stdout).toContain(
      '(dry run, nothing changed): would be 1 created, 0 updated, 0 unchanged; 0 matched; 2 bad rows: the file would be refused without --partial',
    );

    const partial = await run(['import', path, '--partial']);
    expect(partial.code).toBe(0);
    expect(partial.stdout.trim()).toBe(
      `expect import ${path}: 1 created, 0 updated, 0 unchanged; 0 matched; 2 bad rows not loaded`,
    );
    expect(partial.stderr).toContain('line 3: amount:');
    expect((await run(['show', 'cli-1'])).code).toBe(0);
  });

  it('an unknown column or amount_major: exit 2, one line naming them', async () => {
    const path = join(dir, 'odd.csv');
    writeFileSync(path, 'expectation_id,direction,currency,amount_major,colour\nx,in,XOF,1,red\n');
    const refused = await run(['import', path]);
    expect(refused.code).toBe(2);
    expect(oneLine(refused.stderr)).toMatch(
      /^paysync expect import: column amount_major is not supported/,
    );
    writeFileSync(
      path,
      'expectation_id,direction,currency,amount,window_from,window_to,colour,size\n',
    );
    expect(oneLine((await run(['import', path])).stderr)).toMatch(
      /^paysync expect import: unknown columns: colour, size \(/,
    );
    const missing = await run(['import', join(dir, 'nope.csv')]);
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toContain('nope.csv: cannot read it');
  });

  it('add: created, then unchanged, then updated; a bad flag is named, exit 2', async () => {
    const args = [
      'add',
      '--id',
      'pay-77',
      '--direction',
      'out',
      '--currency',
      'XOF',
      '--amount',
      '50000',
      '--from',
      '2030-01-10',
      '--to',
      '2030-01-11',
      '--counterparty',
      '2250799887766',
      '--metadata',
      'employee=E-77',
      '--metadata',
      'team=night',
    ];
    const created = await run(args);
    expect(created.code).toBe(0);
    expect(created.stdout.trim()).toBe(
      'expect add: created pay-77 (out 50,000 XOF, version 1, open); 0 matched',
    );
    expect((await run(args)).stdout).toContain('expect add: unchanged pay-77');
    const updated = await run([...args.slice(0, 8), '50500', ...args.slice(9), '--json']);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      outcome: 'updated',
      expectation: { version: 2, amount_min: 50500, metadata: { employee: 'E-77', team: 'night' } },
    });
    const bad = await run([...args.slice(0, 8), '500.5', ...args.slice(9)]);
    expect(bad.code).toBe(2);
    expect(oneLine(bad.stderr)).toMatch(/^paysync expect add: --amount: must be a whole/);
    const kinds = await run([...args, '--kinds', 'payment_intent']);
    expect(kinds.code).toBe(2);
    expect(oneLine(kinds.stderr)).toContain(
      '--kinds: payment_intent cannot pay an expectation of direction out',
    );
  });

  it('list and show mask the counterparty by the one policy (as alerts do) in text; --json has it whole', async () => {
    const list = await run(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/pay-77 +out +50,500 XOF .*open .* 22507••••••66 /);
    expect(list.stdout).not.toContain('0799887766');
    const show = await run(['show', 'pay-77']);
    expect(show.stdout).toMatch(/^Counterparty +22507••••••66$/m);
    expect(show.stdout).not.toContain('0799887766');
    expect(show.stdout).toMatch(/created +cli +/);
    expect(show.stdout).toMatch(/updated +cli +/);
    const json = JSON.parse((await run(['show', 'pay-77', '--json'])).stdout) as {
      expectation: { counterparty: string };
      history: { change: string }[];
    };
    expect(json.expectation.counterparty).toBe('2250799887766');
    expect(json.history.map((h) => h.change)).toEqual(['created', 'updated']);
    const open = JSON.parse((await run(['list', '--state', 'cancelled', '--json'])).stdout);
    expect(open).toEqual([]);
    const badState = await run(['list', '--state', 'closed']);
    expect(badState.code).toBe(2);
  });

  it('cancel, twice; resolve one expectation with --by or the OS user', async () => {
    const cancel = await run(['cancel', 'pay-77', '--reason', 'left the company']);
    expect(cancel.stdout.trim()).toBe('expect cancel: pay-77 cancelled.');
    expect((await run(['cancel', 'pay-77'])).stdout.trim()).toBe(
      'expect cancel: pay-77 was already cancelled; nothing changed.',
    );
    const resolved = await run(['resolve', 'order-4711', '--reason', 'paid in cash']);
    expect(resolved.code).toBe(0);
    expect(resolved.stdout.trim()).toBe(
      `expect resolve: order-4711 resolved by hand by ${userInfo().username}.`,
    );
    const show = await run(['show', 'order-4711']);
    expect(show.stdout).toMatch(/^Resolved +by hand by \S+ at \S+: paid in cash$/m);
    const noReason = await run(['resolve', 'order-4712']);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain("required option '--reason <text>' not specified");
    const unknown = await run(['resolve', 'nope', '--reason', 'x'], 'process');
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown.stderr)).toContain('no expectation "nope"');
  });

  it('resolve in bulk: how many and which; --dry-run changes nothing', async () => {
    const a = await insertBreak(database.db, { kind: 'amount_mismatch', difference: -4 });
    const b = await insertBreak(database.db, { kind: 'amount_mismatch', difference: 5 });
    await insertBreak(database.db, { kind: 'amount_mismatch', difference: 50 });
    const args = [
      'resolve',
      '--break',
      'amount_mismatch',
      '--max-difference',
      '5',
      '--reason',
      'bank rounding',
      '--by',
      'finance-bot',
    ];
    const dry = await run([...args, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      '(dry run, nothing changed): would resolve 2 open amount_mismatch breaks:',
    );
    const done = await run([...args, '--json']);
    expect(JSON.parse(done.stdout)).toMatchObject({
      count: 2,
      breaks: [
        { id: a, resolved_by: 'finance-bot', resolution_reason: 'bank rounding' },
        { id: b, resolved_by: 'finance-bot' },
      ],
    });
    const again = await run(args);
    expect(again.stdout.trim()).toBe(
      'expect resolve: resolved 0 open amount_mismatch breaks by hand by finance-bot.',
    );
    const one = await run(['resolve', '--break-id', String(a), '--reason', 'x']);
    expect(one.stdout).toContain(`break ${a} was already resolved (by finance-bot)`);
    const badKind = await run(['resolve', '--break', 'odd', '--reason', 'x']);
    expect(badKind.code).toBe(2);
    const mixed = await run(['resolve', 'order-4712', '--max-difference', '5', '--reason', 'x']);
    expect(mixed.code).toBe(2);
    expect(oneLine(mixed.stderr)).toContain('go with --break <kind>');
  });

  it('no text output ever held a whole counterparty number', () => {
    const all = textOutputs.join('\n');
    expect(all).not.toContain('2250799887766');
    expect(all).not.toContain('2250700000004');
  });
});
