import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { closedPort } from './run-cli.ts';
import { until } from './until.ts';

/** A master, a replica of it and a sentinel watching them, each on a private port of its own. */
export interface PrivateSentinel {
  /** `redis+sentinel://127.0.0.1:<sentinel port>/<master name>`: what paysync is given. */
  readonly url: string;
  readonly masterName: string;
  readonly sentinelPort: number;
  readonly masterPort: number;
  readonly replicaPort: number;
  /** `host:port` of the master the sentinel names now. */
  currentMaster(): Promise<string>;
  /**
   * `SENTINEL FAILOVER`, repeated until the sentinel names the replica as the master (it may
   * answer NOGOODSLAVE while its view of the replica is a few seconds old). Returns the new
   * master's `host:port`.
   */
  failover(): Promise<string>;
  stop(): Promise<void>;
}

const SERVER_ARGS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

function client(port: number): Redis {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => 100,
  });
  redis.on('error', () => undefined);
  return redis;
}

async function answers(redis: Redis): Promise<boolean> {
  try {
    if (redis.status === 'wait') await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}

/**
 * Starts the three `redis-server`s (nothing on disk; the sentinel's config file in a folder of
 * its own) and waits until the sentinel sees the replica in sync, so a failover can pick it.
 * Every process is killed by `stop()`, and with this process if the test dies first.
 */
export async function startPrivateSentinel(masterName = 'paysync-test'): Promise<PrivateSentinel> {
  const children: ChildProcess[] = [];
  const clients: Redis[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'paysync-sentinel-'));
  const killAll = () => {
    for (const child of children) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  const start = (args: readonly string[]) => {
    // In the temporary folder: a full resync after the switch writes dump.rdb where it runs.
    const child = spawn('redis-server', args, { stdio: 'ignore', cwd: dir });
    children.push(child);
    return child;
  };
  const stop = async () => {
    process.off('exit', killAll);
    for (const redis of clients) redis.disconnect();
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const masterPort = await closedPort();
    const replicaPort = await closedPort();
    const sentinelPort = await closedPort();
    start([
      '--port',
      String(masterPort),
      ...SERVER_ARGS,
      '--dir',
      dir,
      '--dbfilename',
      'master.rdb',
    ]);
    start([
      '--port',
      String(replicaPort),
      ...SERVER_ARGS,
      '--dir',
      dir,
      '--dbfilename',
      'replica.rdb',
      '--replicaof',
      '127.0.0.1',
      String(masterPort),
    ]);
    const replica = client(replicaPort);
    clients.push(replica);
    // The replica in sync first: the sentinel then finds it in the master's first INFO.
    await until(
      async () =>
        (await answers(replica)) &&
        (await replica.info('replication')).includes('master_link_status:up'),
      { message: `the replica on port ${replicaPort} in sync`, timeoutMs: 20_000 },
    );
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 1`,
        `sentinel down-after-milliseconds ${masterName} 1000`,
        `sentinel failover-timeout ${masterName} 4000`,
        '',
      ].join('\n'),
    );
    start([conf, '--sentinel']);
    const sentinel = client(sentinelPort);
    clients.push(sentinel);
    await until(
      async () => {
        if (!(await answers(sentinel))) return false;
        const replicas = (await sentinel.call('SENTINEL', 'REPLICAS', masterName)) as string[][];
        return replicas.some((fields) => {
          const entry = new Map<string, string>();
          for (let i = 0; i + 1 < fields.length; i += 2) entry.set(fields[i]!, fields[i + 1]!);
          return (
            entry.get('port') === String(replicaPort) &&
            entry.get('flags') === 'slave' &&
            entry.get('master-link-status') === 'ok'
          );
        });
      },
      { message: `the sentinel on port ${sentinelPort} to see the replica`, timeoutMs: 20_000 },
    );
    const currentMaster = async () => {
      const [host, port] = (await sentinel.call(
        'SENTINEL',
        'GET-MASTER-ADDR-BY-NAME',
        masterName,
      )) as [string, string];
      return `${host}:${port}`;
    };
    return {
      url: `redis+sentinel://127.0.0.1:${sentinelPort}/${masterName}`,
      masterName,
      sentinelPort,
      masterPort,
      replicaPort,
      currentMaster,
      async failover() {
        const target = `127.0.0.1:${replicaPort}`;
        await until(
          async () => {
            if ((await currentMaster()) === target) return true;
            // NOGOODSLAVE or INPROGRESS: ask again on the next round.
            await sentinel.call('SENTINEL', 'FAILOVER', masterName).catch(() => undefined);
            await until(async () => (await currentMaster()) === target, {
              message: 'the switch',
              timeoutMs: 3000,
            }).catch(() => undefined);
            return (await currentMaster()) === target;
          },
          { message: `the sentinel to name ${target} the master`, timeoutMs: 30_000 },
        );
        return target;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A sentinel watching nothing, on a private port: it knows no master by any name. */
export async function startLoneSentinel(): Promise<{
  readonly port: number;
  stop(): Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'paysync-sentinel-'));
  const port = await closedPort();
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(conf, `port ${port}\nbind 127.0.0.1\ndir ${dir}\n`);
  const child = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore', cwd: dir });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    probe.disconnect();
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const probe = client(port);
  try {
    await until(() => answers(probe), {
      message: `the sentinel on port ${port}`,
      timeoutMs: 20_000,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, stop };
}
