import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort, PAYSYNC_BIN } from '../../support/run-cli.ts';
import { waitForHealth } from '../../support/wait-for-health.ts';

/** A real `paysync serve` child process, started and answering /healthz. */
export interface ServeChild {
  readonly port: number;
  readonly url: string;
  /** Its ops port (metrics, detailed readiness, ops API, dashboard). */
  readonly opsUrl: string;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** True while the process has neither exited nor been killed by a signal. */
  alive(): boolean;
  /** SIGTERM, then the exit code (null when a signal ended it). */
  stop(): Promise<number | null>;
}

/**
 * Spawns `paysync serve` (or `command`, another role with the receiver) exactly as an operator
 * would (the real CLI, a clean environment with only the PAYSYNC_* variables given), on a free
 * port, and waits until /healthz answers.
 */
export async function spawnServe(
  env: Record<string, string>,
  options: { startTimeoutMs?: number; command?: 'serve' | 'start'; cwd?: string } = {},
): Promise<ServeChild> {
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}`;
  // Its own ops port: children run side by side, and the default one (9465) is shared.
  const opsPort = env.PAYSYNC_OPS_PORT ?? String(await closedPort());
  const child = spawn(process.execPath, [PAYSYNC_BIN, options.command ?? 'serve'], {
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), 'paysync-serve-')),
    env: { PATH: process.env.PATH, ...env, PAYSYNC_PORT: String(port), PAYSYNC_OPS_PORT: opsPort },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const alive = () => child.exitCode === null && child.signalCode === null;
  try {
    await waitForHealth(url, { child, timeoutMs: options.startTimeoutMs ?? 60_000 });
  } catch (error) {
    if (alive()) child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}; it printed:\n${output.slice(-2000)}`);
  }
  return {
    port,
    url,
    opsUrl: `http://127.0.0.1:${opsPort}`,
    output: () => output,
    alive,
    async stop() {
      if (alive()) child.kill('SIGTERM');
      return exited;
    },
  };
}
