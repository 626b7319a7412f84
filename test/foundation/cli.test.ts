import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.ts';
import { closedPort, runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

// The checks of parsing, messages and exit codes run the program in this process
// (runCliInProcess, issue 39); `--help` and `migrate` stay real processes, to prove the boundary.

const DESIGN_COMMANDS = [
  'start',
  'serve',
  'work',
  'schedule',
  'migrate',
  'sim',
  'demo',
  'sweep',
  'backfill',
  'runs',
  'export',
  'list',
  'show',
  'webhooks',
  'replay',
  'doctor',
];

/** A TCP server that accepts connections and never answers: a hung service. */
let silent: Server;
let silentPort = 0;
const silentSockets = new Set<Socket>();
beforeAll(async () => {
  silent = createServer((socket) => silentSockets.add(socket));
  await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
  silentPort = (silent.address() as { port: number }).port;
});
afterAll(() => {
  for (const socket of silentSockets) socket.destroy();
  silent.close();
});

describe('paysync CLI', () => {
  it('--help lists every command of the design and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of DESIGN_COMMANDS) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
  });

  it('--help of one command explains it and exits 0', async () => {
    const result = await runCliInProcess(['backfill', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--from <time>');
  });

  it('an unknown command exits 2 with a usage hint', async () => {
    const result = await runCliInProcess(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
  });

  it('doctor with an invalid PAYSYNC_ENVIRONMENT exits non-zero with one line naming it', async () => {
    const result = await runCliInProcess(['doctor'], { env: { PAYSYNC_ENVIRONMENT: 'prod' } });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('PAYSYNC_ENVIRONMENT');
    expect(lines[0]).toContain('live, sandbox');
    expect(result.stdout).toBe('');
  });

  it('doctor with Redis down prints one ✖ Redis line with a hint, no stack, and exits 1', async () => {
    const port = await closedPort();
    const result = await runCliInProcess(['doctor'], {
      env: { PAYSYNC_REDIS_URL: `redis://127.0.0.1:${port}` },
    });
    expect(result.code).toBe(1);
    const redisLines = result.stdout.split('\n').filter((l) => l.includes('redis'));
    expect(redisLines).toHaveLength(1);
    expect(redisLines[0]).toMatch(
      new RegExp(`^✖ redis +cannot connect to redis://127.0.0.1:${port} \\(connect ECONNREFUSED`),
    );
    expect(redisLines[0]).toContain('→ start Redis, or set PAYSYNC_REDIS_URL');
    expect(result.stdout + result.stderr).not.toMatch(/^\s+at /m);
  });

  it('doctor reports a service that does not answer, naming the URL', async () => {
    const result = await runCliInProcess(['doctor'], {
      env: {
        PAYSYNC_UPSTREAM_URL: `http://127.0.0.1:${silentPort}`,
        PAYSYNC_API_KEY: 'sk_test_doctor_1234',
        PAYSYNC_MERCHANT_ID: 'm_doctor',
        PAYSYNC_UPSTREAM_TIMEOUT_MS: '500',
      },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(`^✖ service +http://127.0.0.1:${silentPort} did not answer within 500 ms → `, 'm'),
    );
    expect(result.stdout + result.stderr).not.toContain('sk_test_doctor_1234');
  });

  it('doctor reports a refused service connection and missing credentials by name', async () => {
    const port = await closedPort();
    const refused = await runCliInProcess(['doctor'], {
      env: {
        PAYSYNC_UPSTREAM_URL: `http://127.0.0.1:${port}`,
        PAYSYNC_API_KEY: 'sk_test_doctor_1234',
        PAYSYNC_MERCHANT_ID: 'm_doctor',
      },
    });
    expect(refused.stdout).toMatch(
      /^✖ service +cannot reach http:\/\/127\.0\.0\.1:\d+ \(.*ECONNREFUSED/m,
    );
    const missing = await runCliInProcess(['doctor']);
    expect(missing.stdout).toMatch(
      /^✖ service +not configured: PAYSYNC_UPSTREAM_URL, PAYSYNC_API_KEY, PAYSYNC_MERCHANT_ID are not set/m,
    );
  });

  it('migrate needs no service credentials, and doctor then finds the database current', async () => {
    const cwd = (await import('node:fs')).mkdtempSync(
      (await import('node:path')).join((await import('node:os')).tmpdir(), 'paysync-doc-'),
    );
    const migrate = await runCli(['migrate'], { cwd });
    expect(migrate.code).toBe(0);
    const doctor = await runCliInProcess(['doctor'], { cwd });
    expect(doctor.stdout).toMatch(
      new RegExp(
        `^✔ database +sqlite:.*data/paysync\\.db, ${Object.keys(migrations).length} migration\\(s\\) applied$`,
        'm',
      ),
    );
    expect(doctor.stdout).toMatch(/^✔ redis +redis:\/\/127\.0\.0\.1:6379/m);
  });
});
