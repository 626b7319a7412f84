import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closedPort } from '../support/run-cli.ts';
import { until } from '../support/until.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/paysync.js');

/**
 * The README's "Getting started", step by step, as written (issue 40, acceptance 1). Its shell
 * lines are read from README.md itself, so a change to the README changes what runs here. The
 * only substitutions are what a test cannot share with a person at a terminal:
 * - `npx paysync` runs this checkout's bin/paysync.js;
 * - the simulator's port 4010, the receiver's 8080 and the ops port 9465 become free ports
 *   (PAYSYNC_PORT and PAYSYNC_OPS_PORT are in the simulator's environment, so the `.env` block
 *   and the `webhooks register` line it prints carry them, as they would carry yours);
 * - `tr_…` is the first id the `list` step printed;
 * - the queues get a prefix of this test's own (PAYSYNC_QUEUE_PREFIX), beside other tests.
 * `sim` and `start` keep running, as in their own terminals; every other line must exit 0.
 */
interface Step {
  readonly line: string;
}

function gettingStartedSteps(readme: string): Step[] {
  const start = readme.indexOf('\n## Getting started');
  const end = readme.indexOf('\n## ', start + 1);
  expect(start, 'README.md has a "## Getting started" section').toBeGreaterThan(0);
  const section = readme.slice(start, end);
  const steps: Step[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.trim();
      if (line !== '' && !line.startsWith('#')) steps.push({ line });
    }
  }
  return steps;
}

describe('the README getting-started, followed literally', () => {
  const folder = mkdtempSync(join(tmpdir(), 'paysync-getting-started-'));
  const running: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of running) {
      if (child.exitCode === null) child.kill('SIGTERM');
    }
    await Promise.all(
      running.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            const timer = setTimeout(() => {
              child.kill('SIGKILL');
              resolve();
            }, 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
          }),
      ),
    );
    rmSync(folder, { recursive: true, force: true });
  });

  it('ends with report RECONCILED (exit 0), the same verdict on Today, and hledger check --strict clean', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const steps = gettingStartedSteps(readme);
    expect(
      steps.map((s) =>
        s.line
          .split(' ')
          .slice(0, s.line.includes(' expect ') ? 4 : 3)
          .join(' '),
      ),
    ).toEqual([
      'npx paysync sim',
      'npx paysync migrate',
      'npx paysync webhooks',
      'npx paysync doctor',
      'npx paysync start',
      'npx paysync backfill',
      'npx paysync list',
      'npx paysync show',
      'npx paysync expect import',
      'npx paysync expect list',
      'npx paysync balances',
      'npx paysync report',
      'npx paysync export',
      'hledger -f data/yesterday.journal',
    ]);

    const [simPort, port, opsPort] = [await closedPort(), await closedPort(), await closedPort()];
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PAYSYNC_PORT: String(port),
      PAYSYNC_OPS_PORT: String(opsPort),
      PAYSYNC_QUEUE_PREFIX: `paysync-gs-${randomBytes(4).toString('hex')}`,
      PAYSYNC_LOG_LEVEL: 'warn',
    };
    const command = (line: string, firstId: string | undefined) =>
      line
        .replaceAll('npx paysync', `${process.execPath} ${BIN}`)
        .replace('--port 4010', `--port ${simPort}`)
        .replace('127.0.0.1:8080', `127.0.0.1:${port}`)
        .replace('tr_…', firstId ?? 'tr_…');
    const spawnLine = (line: string) =>
      spawn('bash', ['-c', line], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });

    const runLine = (line: string) => {
      const child = spawnLine(command(line, undefined));
      return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    };

    let firstId: string | undefined;
    const outputs = new Map<string, { code: number | null; stdout: string; stderr: string }>();
    for (const step of steps) {
      const line = command(step.line, firstId);
      if (/^npx paysync (sim|start)\b/.test(step.line)) {
        const child = spawnLine(line);
        running.push(child);
        let out = '';
        let err = '';
        child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
        if (step.line.includes(' sim ')) {
          // "Copy that block into a file named .env in this folder."
          await until(() => out.includes('\n\nThen register'), {
            message: `paysync sim printed its .env block (stderr: ${err})`,
            timeoutMs: 30_000,
          });
          const block = out.slice(out.indexOf('# paysync .env'), out.indexOf('\n\nThen register'));
          expect(block).toContain(`PAYSYNC_PORT=${port}`);
          expect(out).toContain(
            `npx paysync webhooks register --url http://127.0.0.1:${port}/webhooks`,
          );
          writeFileSync(join(folder, '.env'), `${block}\n`);
        } else {
          await until(
            async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok,
            { message: `paysync start answered /readyz (stderr: ${err})`, timeoutMs: 60_000 },
          );
        }
        continue;
      }
      const result = await runLine(line);
      outputs.set(
        step.line
          .split(' ')
          .slice(0, step.line.includes(' expect ') ? 4 : 3)
          .join(' '),
        result,
      );
      expect(result.code, `${step.line}\n${result.stdout}\n${result.stderr}`).toBe(0);
      if (step.line.startsWith('npx paysync list transfers')) {
        firstId = /\btr_[A-Za-z0-9]+/.exec(result.stdout)?.[0];
        expect(firstId, result.stdout).toBeDefined();
      }
    }

    const report = outputs.get('npx paysync report')!;
    expect(report.stdout).toMatch(/^\d{4}-\d{2}-\d{2} \(UTC, sandbox\): RECONCILED$/m);
    const day = /^(\d{4}-\d{2}-\d{2}) /.exec(report.stdout)![1]!;
    expect(outputs.get('npx paysync doctor')!.stdout).toContain('✔ webhooks registered');
    expect(outputs.get('npx paysync show')!.stdout).toContain(`Transfer ${firstId}`);
    expect(outputs.get('npx paysync expect import')!.stdout).toMatch(/\b5 created\b/);
    // The payroll's transfers settle seconds after the simulator started: all five match.
    await until(
      async () => {
        const listed = await runLine(`npx paysync expect list --json`);
        const rows = JSON.parse(listed.stdout) as { state: string }[];
        return rows.length === 5 && rows.every((row) => row.state === 'matched');
      },
      { message: 'the five payroll expectations matched', timeoutMs: 60_000 },
    );

    // Step 10: log in with PAYSYNC_ADMIN_TOKEN from .env; Today shows the same verdict.
    const token = /^PAYSYNC_ADMIN_TOKEN=(.+)$/m.exec(
      readFileSync(join(folder, '.env'), 'utf8'),
    )![1]!;
    const login = await fetch(`http://127.0.0.1:${opsPort}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const today = await fetch(`http://127.0.0.1:${opsPort}/`, { headers: { cookie } });
    expect(today.status).toBe(200);
    const row = new RegExp(`<tr[^>]*data-day="${day}"[^>]*>[\\s\\S]*?</tr>`).exec(
      await today.text(),
    );
    expect(row?.[0], `Today's row for ${day}`).toMatch(/RECONCILED/);
  }, 240_000);
});
