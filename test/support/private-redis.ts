import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { closedPort } from './run-cli.ts';

export interface PrivateRedis {
  readonly url: string;
  /** A client for the test's own commands (FLUSHALL, CONFIG SET). */
  readonly client: Redis;
  stop(): Promise<void>;
}

/**
 * A redis-server of this test's own, on a free port, keeping nothing on disk: for tests that
 * must FLUSHALL or change the eviction policy without touching the Redis other tests share.
 */
export async function startPrivateRedis(extraArgs: readonly string[] = []): Promise<PrivateRedis> {
  const port = await closedPort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      ...extraArgs,
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => 100,
  });
  client.on('error', () => undefined);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if (client.status === 'wait') await client.connect();
      await client.ping();
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    client,
    async stop() {
      client.disconnect();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
