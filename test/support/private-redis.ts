import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { closedPort } from './run-cli.ts';
import { until } from './until.ts';

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
  try {
    await until(
      async () => {
        try {
          if (client.status === 'wait') await client.connect();
          return (await client.ping()) === 'PONG';
        } catch {
          return false; // not listening yet
        }
      },
      { message: `redis-server on port ${port} to answer PING`, timeoutMs: 30_000 },
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
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
