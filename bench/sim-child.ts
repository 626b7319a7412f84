import { spawn, type ChildProcess } from 'node:child_process';

/** A `paysync sim` child process of a bench, and the URL it answers on. */
export interface SimChild {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `paysync sim` on a free port as a child process (its CPU is its own), with the given
 * credentials and seed 7, and resolves once it prints `PAYSYNC_UPSTREAM_URL=…`. `nodeArgs`
 * go before the script (e.g. `--cpu-prof`), `simArgs` after `sim` (e.g. `--settled-in-memory`).
 */
export async function startSimChild(
  credentials: { readonly apiKey: string; readonly merchantId: string },
  nodeArgs: readonly string[] = [],
  simArgs: readonly string[] = [],
): Promise<SimChild> {
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      'bin/paysync.js',
      'sim',
      '--port',
      '0',
      '--api-key',
      credentials.apiKey,
      '--merchant-id',
      credentials.merchantId,
      '--seed',
      '7',
      ...simArgs,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PAYSYNC_LOG_LEVEL: 'warn' } },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^PAYSYNC_UPSTREAM_URL=(\S+)$/m.exec(out);
      if (match?.[1]) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => reject(new Error(`paysync sim exited with ${code}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
