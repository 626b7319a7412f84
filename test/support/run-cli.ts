import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../src/lifecycle/index.ts';

export const PAYSYNC_BIN = resolve(import.meta.dirname, '../../bin/paysync.js');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The signal that ended it (runCli's own SIGTERM when it ran past `timeoutMs`), or null. */
  readonly signal: NodeJS.Signals | null;
}

/** The environment without any PAYSYNC_* the developer's shell may have set. */
function cleanEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('PAYSYNC_') && !key.startsWith('npm_') && key !== 'NODE_OPTIONS') {
      env[key] = value;
    }
  }
  return { ...env, ...extra };
}

/** Runs `paysync <args>` as a real child process, in a fresh folder unless `cwd` is given. */
export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), 'paysync-cli-'));
  return new Promise((resolveResult) => {
    execFile(
      process.execPath,
      [PAYSYNC_BIN, ...args],
      { cwd, env: cleanEnvironment(options.env ?? {}), timeout: options.timeoutMs ?? 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolveResult({ code, stdout, stderr, signal: error?.signal ?? null });
      },
    );
  });
}

/** A TCP port nothing listens on (bound, then released). */
export { freePort as closedPort } from '../../src/lifecycle/index.ts';

/** A long-running `paysync <command>` (start, serve, work…) started by {@link startPaysync}. */
export interface RunningPaysync {
  readonly child: ChildProcess;
  /** The receiver's port (PAYSYNC_PORT), free when it started. */
  readonly port: number;
  /** Everything it wrote so far, stdout and stderr together. */
  output(): string;
  /** Its exit code, once it exits. */
  readonly exited: Promise<number | null>;
}

/**
 * Starts `paysync <command>` as a real child process with the clean environment, `env`, a free
 * receiver port and ops port of its own (other tests' processes may hold the defaults) and
 * info logs, collecting its output.
 */
export async function startPaysync(
  command: string,
  env: Record<string, string>,
): Promise<RunningPaysync> {
  const port = await freePort();
  const child = spawn(process.execPath, [PAYSYNC_BIN, command], {
    env: cleanEnvironment({
      ...env,
      PAYSYNC_PORT: String(port),
      PAYSYNC_OPS_PORT: String(await freePort()),
      PAYSYNC_LOG_LEVEL: 'info',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) =>
    child.once('exit', (code) => resolveExit(code)),
  );
  return { child, port, output: () => output, exited };
}
