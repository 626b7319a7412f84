/**
 * Issue 39: how soon the CLI answers. Runs `paysync --help` and `paysync show <id>` (a
 * transfer stored in a fresh, migrated SQLite file, with its history and journal) as child
 * processes, one after another, and prints the median, fastest and slowest wall time of each
 * and its median CPU time (user + system), which the machine's load moves far less. Targets: `--help` ≤ 200 ms, `show` ≤ 400 ms.
 * `bin/paysync.js` runs the compiled dist/ when it is current (run `npm run build` first to
 * measure what a user runs) and the sources through tsx otherwise; the row says which.
 * Appends a row to docs/performance.md, "CLI start".
 *
 * Usage: npm run bench:cli [-- --runs 15] [--label "before"] [--no-write]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDatabase } from '../src/db/index.ts';
import { applyTransfer } from '../src/ledger/index.ts';
import { transferFixture } from '../test/support/resource-fixtures.ts';
import { benchCli } from './bench-cli.ts';
import { appendPerformanceRow } from './performance-doc.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    label: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 3 || runs > 1000) {
  console.error('--runs must be a whole number from 3 to 1000');
  process.exit(2);
}

const loadBefore = loadavg()
  .map((value) => value.toFixed(2))
  .join(' / ');
const dir = mkdtempSync(join(tmpdir(), 'paysync-bench-cli-'));
const env: NodeJS.ProcessEnv = {};
for (const [key, value] of Object.entries(process.env)) {
  if (!key.startsWith('PAYSYNC_') && !key.startsWith('npm_')) env[key] = value;
}
env.PAYSYNC_DATABASE_URL = `sqlite:${join(dir, 'paysync.db')}`;

/** What bin/paysync.js will run: `dist/` when it is current, else the sources (bin/entry.js). */
function entryRun(): string {
  const chosen = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const { chooseEntry } = await import('./bin/entry.js'); console.log(chooseEntry(process.cwd()));",
    ],
    { env, encoding: 'utf8' },
  ).stdout.trim();
  return chosen === 'dist' ? 'dist/' : 'sources through tsx';
}

const TICKS_PER_SECOND =
  Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU seconds (user + system) of this process's waited-for children so far (Linux /proc). */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/**
 * Wall and CPU milliseconds of one `paysync <args>`, which must exit with `code`. The CPU time
 * (user + system, from /proc's children's times) moves far less with the machine's load.
 */
function timeOnce(args: readonly string[], code: number): { wall: number; cpu: number } {
  const cpuBefore = childrenCpuSeconds();
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['bin/paysync.js', ...args], {
    env,
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (child.status !== code) {
    throw new Error(`paysync ${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  }
  return { wall, cpu: (childrenCpuSeconds() - cpuBefore) * 1000 };
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  const migrated = spawnSync(process.execPath, ['bin/paysync.js', 'migrate'], {
    env,
    encoding: 'utf8',
  });
  if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  const database = createDatabase(env.PAYSYNC_DATABASE_URL);
  const transfer = transferFixture({ id: 'tr_BenchCliStart0000000001', status: 'successful' });
  await applyTransfer(database.db, transfer, {
    via: 'poll',
    observedAt: new Date().toISOString(),
  });
  await database.close();

  const entry = entryRun();
  console.log(`load average ${loadBefore}; ${runs} runs each; paysync runs ${entry}`);
  const commands = [
    { name: '`paysync --help`', args: ['--help'], target: 200 },
    { name: '`paysync show <id>`', args: ['show', transfer.id], target: 400 },
  ];
  timeOnce(['--help'], 0); // warm the disk cache once
  const results = commands.map((command) => {
    const runsOf = Array.from({ length: runs }, () => timeOnce(command.args, 0));
    const times = runsOf.map((r) => r.wall).sort((a, b) => a - b);
    const result = {
      ...command,
      median: median(times),
      fastest: times[0]!,
      slowest: times.at(-1)!,
      cpu: median(runsOf.map((r) => r.cpu)),
    };
    console.log(
      `${command.name}: median ${result.median.toFixed(0)} ms wall (fastest ${result.fastest.toFixed(0)}, slowest ${result.slowest.toFixed(0)}; target ≤ ${command.target} ms), median CPU ${result.cpu.toFixed(0)} ms`,
    );
    return result;
  });

  if (!values['no-write']) {
    const label = values.label ? ` ${values.label}` : '';
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, load ${loadBefore}`;
    const file = appendPerformanceRow({
      marker: '<!-- bench:cli:rows (appended by `npm run bench:cli`) -->',
      header: [
        '## CLI start (`npm run bench:cli`)',
        '',
        'Issue 39: the wall time of one `paysync` process, median of the runs, and its median CPU time (user + system), which the load moves far less (see the script header). Targets: `--help` ≤ 200 ms, `show <id>` ≤ 400 ms.',
        '',
        '| Run | Code run | Runs | `--help` median (fastest–slowest) | `show <id>` median (fastest–slowest) | Machine |',
        '| --- | -------- | ---: | --------------------------------- | ------------------------------------ | ------- |',
      ],
      row: `| ${new Date().toISOString().slice(0, 16)}Z${label} | ${entry} | ${runs} | ${results
        .map(
          (r) =>
            `${r.median.toFixed(0)} ms (${r.fastest.toFixed(0)}–${r.slowest.toFixed(0)}), CPU ${r.cpu.toFixed(0)} ms`,
        )
        .join(' | ')} | ${machine} |`,
    });
    console.log(`wrote ${file}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
