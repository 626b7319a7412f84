import { spawn, type ChildProcess } from 'node:child_process';
import { PAYSYNC_BIN } from '../../support/run-cli.ts';

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Everything it wrote, for a failed test's message. */
  output(): string;
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
}

/**
 * `paysync work` as a real child process with `env` (and nothing else of ours), resolved once
 * it logs that its workers are taking jobs.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<WorkerProcess> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('PAYSYNC_') && !key.startsWith('npm_') && key !== 'NODE_OPTIONS')
      clean[key] = value;
  }
  const child = spawn(process.execPath, [PAYSYNC_BIN, 'work'], {
    env: { ...clean, ...env, PAYSYNC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`paysync work did not start:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('workers taking jobs')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`paysync work exited (${code}) before starting:\n${output}`));
    });
  });
  await ready;
  return { child, output: () => output, exited };
}
