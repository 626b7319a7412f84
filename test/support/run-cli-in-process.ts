import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { format } from 'node:util';
import { runPaysync } from '../../src/cli/index.ts';
import { PAYSYNC_BIN, type CliResult } from './run-cli.ts';

/**
 * Runs `paysync <args>` in the test's own process: the same program bin/paysync.js runs
 * (`runPaysync`), with the environment runCli gives a child (no PAYSYNC_*, npm_* or
 * NODE_OPTIONS of the developer's shell, plus `env`), in a fresh folder unless `cwd` is given,
 * its stdout, stderr and exit code captured. For tests of parsing, messages and exit codes: it
 * costs no process start and no module loading after the first run. What needs the process
 * boundary (signals, a server that keeps running, pino's own stdout, a tenants file, which picks
 * a process-wide environment) stays with runCli.
 *
 * While it runs, `process.stdout` and `process.stderr` are streams of its own, not a pipe like
 * a child's: a command that pipes its output to `process.stdout` and ends it (`export`) ends
 * that stream, never the test process's real one (whose write is captured as well, for code that
 * kept a reference to it).
 *
 * Runs one at a time (a run owns process.env, the working folder and the console while it
 * lasts), so the tests using it must not run concurrently within a file.
 */
export async function runCliInProcess(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<CliResult> {
  const env = options.env ?? {};
  if ('PAYSYNC_TENANTS_FILE' in env) {
    throw new Error('runCliInProcess: a tenants file sets a process-wide environment; use runCli');
  }
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), 'paysync-cli-'));
  const saved = {
    env: { ...process.env },
    cwd: process.cwd(),
    exitCode: process.exitCode,
    log: console.log,
    info: console.info,
    warn: console.warn,
    error: console.error,
    stdoutWrite: process.stdout.write,
    stderrWrite: process.stderr.write,
  };
  let stdout = '';
  let stderr = '';
  const toStdout = (...parts: unknown[]) => void (stdout += `${format(...parts)}\n`);
  const toStderr = (...parts: unknown[]) => void (stderr += `${format(...parts)}\n`);
  const capture = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        append(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
        callback();
      },
    });
  const streams = {
    stdout: Object.getOwnPropertyDescriptor(process, 'stdout')!,
    stderr: Object.getOwnPropertyDescriptor(process, 'stderr')!,
  };
  const writer =
    (append: (text: string) => void) =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    };
  for (const key of Object.keys(process.env)) {
    if (key.startsWith('PAYSYNC_') || key.startsWith('npm_') || key === 'NODE_OPTIONS') {
      delete process.env[key];
    }
  }
  Object.assign(process.env, env);
  process.chdir(cwd);
  process.exitCode = undefined;
  console.log = toStdout;
  console.info = toStdout;
  console.warn = toStderr;
  console.error = toStderr;
  process.stdout.write = writer((text) => (stdout += text)) as typeof process.stdout.write;
  process.stderr.write = writer((text) => (stderr += text)) as typeof process.stderr.write;
  const ownStdout = capture((text) => (stdout += text));
  const ownStderr = capture((text) => (stderr += text));
  // An accessor whatever the original was (a getter in a forked worker, a value elsewhere).
  const own = (stream: Writable) => ({ configurable: true, enumerable: true, get: () => stream });
  Object.defineProperty(process, 'stdout', own(ownStdout));
  Object.defineProperty(process, 'stderr', own(ownStderr));
  let code: number;
  try {
    const failed = await runPaysync([process.execPath, PAYSYNC_BIN, ...args]);
    code = failed ?? Number(process.exitCode ?? 0);
  } finally {
    Object.defineProperty(process, 'stdout', streams.stdout);
    Object.defineProperty(process, 'stderr', streams.stderr);
    Object.assign(console, {
      log: saved.log,
      info: saved.info,
      warn: saved.warn,
      error: saved.error,
    });
    process.stdout.write = saved.stdoutWrite;
    process.stderr.write = saved.stderrWrite;
    process.exitCode = saved.exitCode;
    process.chdir(saved.cwd);
    for (const key of Object.keys(process.env)) {
      if (!(key in saved.env)) delete process.env[key];
    }
    Object.assign(process.env, saved.env);
  }
  return { code, stdout, stderr, signal: null };
}
