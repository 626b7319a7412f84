import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { closedPort } from './run-cli.ts';

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, trust auth. */
  readonly url: string;
  stop(): Promise<void>;
}

/** The server's programs: PAYSYNC_TEST_POSTGRES_BIN, else the newest /usr/lib/postgresql/N/bin. */
function serverBin(): string {
  const given = process.env.PAYSYNC_TEST_POSTGRES_BIN;
  if (given) return given;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined) {
    throw new Error(
      `no PostgreSQL server programs under ${root} → install postgresql, or set PAYSYNC_TEST_POSTGRES_BIN to the folder holding initdb and pg_ctl`,
    );
  }
  return join(root, versions[0], 'bin');
}

/**
 * A PostgreSQL server of this test's own, in a temporary folder, on a free port, with `settings`
 * given as `-c name=value`: for a test that needs a server-wide setting (autovacuum off) without
 * touching the server other tests share. initdb and the server refuse to run as root; as root
 * they run as the `postgres` user. About two seconds to start.
 */
export async function startPrivatePostgres(
  settings: Record<string, string> = {},
): Promise<PrivatePostgres> {
  const bin = serverBin();
  const dir = mkdtempSync(join(tmpdir(), 'paysync-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (program: string, args: readonly string[]) =>
    promisify(execFile)(
      asRoot ? 'runuser' : join(bin, program),
      asRoot ? ['-u', 'postgres', '--', join(bin, program), ...args] : args,
      { timeout: 60_000 },
    );
  const data = join(dir, 'data');
  const port = await closedPort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  const stop = async () => {
    await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    await run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
}
