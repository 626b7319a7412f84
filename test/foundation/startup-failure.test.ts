import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { deleteRedisPrefix, uniqueRedisPrefix } from '../support/test-redis.ts';

let holder: Server | undefined;
const prefixes: string[] = [];
const folders: string[] = [];
afterEach(async () => {
  await new Promise<void>((done) => (holder ? holder.close(() => done()) : done()));
  holder = undefined;
  for (const prefix of prefixes.splice(0)) await deleteRedisPrefix(prefix);
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('7.D16: a start-up failure prints one line, no stack, nothing else', () => {
  it('`paysync serve` on a port already in use: one line on stderr naming PAYSYNC_PORT, no error log on stdout', async () => {
    holder = createServer();
    await new Promise<void>((done) => holder!.listen(0, '0.0.0.0', done));
    const port = (holder.address() as { port: number }).port;
    const cwd = mkdtempSync(join(tmpdir(), 'paysync-port-'));
    folders.push(cwd);
    const prefix = uniqueRedisPrefix('port-in-use');
    prefixes.push(prefix);
    const env = {
      PAYSYNC_DATABASE_URL: `sqlite:${join(cwd, 'paysync.db')}`,
      PAYSYNC_WEBHOOK_SCHEME: 'none',
      PAYSYNC_PORT: String(port),
      PAYSYNC_QUEUE_PREFIX: prefix,
    };
    expect((await runCliInProcess(['migrate'], { env, cwd })).code).toBe(0);

    const result = await runCli(['serve'], { env, cwd, timeoutMs: 15_000 });

    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `paysync serve: port ${port} on 0.0.0.0 is already in use → stop what holds it, or set PAYSYNC_PORT to a free port`,
    ]);
    const logLines = result.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { level: number; err?: unknown });
    expect(result.stdout).not.toContain('stack');
    expect(result.stdout).not.toContain('EADDRINUSE');
    // Only the expected warning that signatures are off may be there; no error line.
    expect(logLines.filter((line) => line.level >= 50)).toEqual([]);
  });
});
