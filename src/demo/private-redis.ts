import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Redis } from 'ioredis';
import { hidePasswordInUrl } from '../config/index.ts';
import { freePort } from '../lifecycle/index.ts';
import { createRedisConnection } from '../queues/index.ts';

/** The Redis the demo uses: the configured one, or a private one it started. */
export interface DemoRedis {
  readonly url: string;
  /** True when the demo started this Redis itself (and so stops it). */
  readonly private: boolean;
  stop(): Promise<void>;
}

/** Whether a Redis answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  let client: Redis;
  try {
    client = createRedisConnection(url, 'probe', { timeoutMs });
  } catch {
    return false; // a URL the config will refuse in its own words
  }
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** The full path of `command` on the PATH, or undefined. */
export function findOnPath(command: string, path = process.env.PATH ?? ''): string | undefined {
  for (const folder of path.split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Starts `redis-server` (found at `binary`) on a free local port, keeping nothing on disk
 * (`--save "" --appendonly no`), and waits until it answers. It is killed with this process
 * even if the demo is interrupted before `stop()`.
 */
export async function startPrivateRedis(binary: string, timeoutMs = 10_000): Promise<DemoRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (!(await redisAnswers(url, 500))) {
    if (spawnError || child.exitCode !== null || Date.now() > deadline) {
      process.off('exit', killOnExit);
      child.kill('SIGKILL');
      throw new Error(
        `could not start ${binary} on port ${port}: ${spawnError?.message ?? (child.exitCode !== null ? `it exited with code ${child.exitCode}` : `no answer within ${timeoutMs} ms`)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let stopping: Promise<void> | undefined;
  return {
    url,
    private: true,
    stop() {
      stopping ??= (async () => {
        process.off('exit', killOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/**
 * The Redis for `paysync demo`: `url` when something answers there; otherwise, when
 * `redis-server` is on the PATH, a private one on a free port (`say` tells the user in one
 * line); otherwise `url` all the same, and the daemon's start-up says Redis is not reachable.
 */
export async function demoRedis(url: string, say: (line: string) => void): Promise<DemoRedis> {
  const shared: DemoRedis = { url, private: false, stop: async () => undefined };
  if (await redisAnswers(url)) return shared;
  const binary = findOnPath('redis-server');
  if (!binary) return shared;
  const started = await startPrivateRedis(binary);
  say(
    `paysync demo: no Redis answers at ${hidePasswordInUrl(url)}; started a private one at ${started.url} (nothing on disk, stopped on exit)`,
  );
  return started;
}
