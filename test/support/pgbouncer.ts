import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort } from './run-cli.ts';
import { testPostgresUrl } from './test-database.ts';
import { until } from './until.ts';

/** Debian's pgbouncer (.ci/run installs the package when it is missing). */
export const PGBOUNCER_BIN = '/usr/sbin/pgbouncer';

export interface RunningPgbouncer {
  /** The test database's URL through pgbouncer (no password: `auth_type = any`). */
  readonly url: string;
  /** Everything pgbouncer logged so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real pgbouncer on a free port of 127.0.0.1, in front of the test PostgreSQL server's
 * database, pooling as `mode` says with `serverConnections` server connections per user and
 * database: a small number makes every client share the same few server connections, as
 * transaction pooling does in production.
 */
export async function startPgbouncer(options: {
  mode: 'session' | 'transaction';
  serverConnections: number;
}): Promise<RunningPgbouncer> {
  if (!existsSync(PGBOUNCER_BIN)) {
    throw new Error(`${PGBOUNCER_BIN} is missing → apt-get install pgbouncer (.ci/run does)`);
  }
  const server = new URL(testPostgresUrl());
  const database = server.pathname.slice(1) || 'test';
  const port = await closedPort();
  const dir = mkdtempSync(join(tmpdir(), 'paysync-pgbouncer-'));
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    `[databases]
${database} = host=${server.hostname} port=${server.port || 5432} dbname=${database} user=${decodeURIComponent(server.username) || 'postgres'}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = any
pool_mode = ${options.mode}
default_pool_size = ${options.serverConnections}
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 500
server_reset_query =
ignore_startup_parameters = extra_float_digits
`,
    { mode: 0o644 },
  );
  // pgbouncer will not run as root: it drops to the postgres user, which must read the file.
  const args = process.getuid?.() === 0 ? ['-u', 'postgres', ini] : [ini];
  chmodSync(dir, 0o755);
  const child: ChildProcess = spawn(PGBOUNCER_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      () =>
        new Promise<boolean>((resolve) => {
          if (child.exitCode !== null) resolve(false);
          const socket = createConnection({ host: '127.0.0.1', port });
          socket.once('connect', () => (socket.destroy(), resolve(true)));
          socket.once('error', () => resolve(false));
        }),
      { message: `pgbouncer to listen on ${port}`, timeoutMs: 10_000 },
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}; pgbouncer said: ${output}`);
  }
  return {
    url: `postgres://${server.username || 'postgres'}@127.0.0.1:${port}/${database}`,
    output: () => output,
    stop,
  };
}
