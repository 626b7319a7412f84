import { Writable } from 'node:stream';
import { parseURL as parseRedisUrl } from 'ioredis/built/utils/index.js';
import { parse as parsePostgresUrl } from 'pg-connection-string';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  hidePasswordInUrl,
  loadConfig,
  secretValues,
} from '../../src/config/index.ts';
import { createDatabase } from '../../src/db/index.ts';
import { createLogger } from '../../src/logger.ts';
import { runCli } from '../support/run-cli.ts';

/** Two fragments no host, user or database name below contains. */
const PASSWORDS = ['Xq9@Zk7', 'Xq9:Zk7', 'Xq9/Zk7', 'Xq9%40Zk7', 'Xq9@Zk7@'] as const;

function expectNoPassword(text: string): void {
  expect(text).not.toContain('Xq9');
  expect(text).not.toContain('Zk7');
}

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('7.C8: a URL password is hidden whole, split where the driver splits it', () => {
  it.each(PASSWORDS)('postgres password %s', (password) => {
    const url = `postgres://books:${password}@db.internal:5432/ledger`;
    const shown = hidePasswordInUrl(url);
    expectNoPassword(shown);
    if (!password.includes('/')) {
      // The driver reads exactly this password and this host: the mask ends where it does.
      const driver = parsePostgresUrl(url);
      expect(decodeURIComponent(driver.password ?? '')).toBe(decodeURIComponent(password));
      expect(driver.host).toBe('db.internal');
    }
    expect(shown).toBe('postgres://books:***@db.internal:5432/ledger');
  });

  it.each(PASSWORDS)('redis password %s', (password) => {
    const url = `redis://:${password}@cache.internal:6380/2`;
    const shown = hidePasswordInUrl(url);
    expectNoPassword(shown);
    if (!password.includes('/')) {
      const driver = parseRedisUrl(url) as { password?: string; host?: string };
      expect(decodeURIComponent(driver.password ?? '')).toBe(decodeURIComponent(password));
      expect(driver.host).toBe('cache.internal');
    }
    expect(shown).toBe('redis://:***@cache.internal:6380/2');
  });

  it.each(PASSWORDS)('a config error about a URL holding password %s', (password) => {
    const error = configError({
      PAYSYNC_DATABASE_URL: `postgres://books:${password}@db.internal:99999/ledger`,
    });
    expect(error.variable).toBe('PAYSYNC_DATABASE_URL');
    expectNoPassword(error.message);
  });

  it.each(PASSWORDS)('the database handle and log lines, password %s', (password) => {
    const url = `postgres://books:${password}@127.0.0.1:1/ledger`;
    const handle = createDatabase(url);
    void handle.close();
    expectNoPassword(handle.displayUrl);
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const config = loadConfig({
      PAYSYNC_DATABASE_URL: `postgres://books:${encodeURIComponent(password)}@db/ledger`,
    });
    const logger = createLogger({ destination, secrets: secretValues(config) });
    logger.error({ databaseUrl: url, password }, `cannot reach ${url}: refused`);
    expect(lines).toHaveLength(1);
    expectNoPassword(lines[0]!);
  });

  it('hides the passwords of URLs that follow one another without a space', () => {
    expect(hidePasswordInUrl('postgres://u:Xq9@Zk7@db/ledger,redis://:Xq9Zk7@cache:6379/0')).toBe(
      'postgres://u:***@db/ledger,redis://:***@cache:6379/0',
    );
  });

  it('leaves URLs without a password alone', () => {
    const text = 'fetching https://api.example.com/v1/a@b and postgres://books@db/ledger';
    expect(hidePasswordInUrl(text)).toBe(text);
  });
});

describe('7.D14: database and Redis URLs are validated whole at start-up', () => {
  it.each([
    ['PAYSYNC_REDIS_URL', 'redis://127.0.0.1:99999', /has port 99999: use a port from 1 to 65535/],
    ['PAYSYNC_REDIS_URL', 'redis://127.0.0.1:0', /has port 0/],
    ['PAYSYNC_REDIS_URL', 'redis://127.0.0.1:6379/zero', /not a number/],
    ['PAYSYNC_REDIS_URL', 'redis://:pw@:6379', /./],
    ['PAYSYNC_DATABASE_URL', 'postgres://postgres@127.0.0.1:99999/test', /has port 99999/],
    ['PAYSYNC_DATABASE_URL', 'postgres://postgres@127.0.0.1:70000/test', /has port 70000/],
    ['PAYSYNC_DATABASE_URL', 'postgres://u:12/Xq9@db/ledger', /percent-encode/],
    ['PAYSYNC_DATABASE_URL', 'postgres://u@[::1/ledger', /PostgreSQL driver can read/],
  ])('%s=%s is refused, naming the variable', (variable, value, pattern) => {
    const error = configError({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(new RegExp(`^${variable}=`));
    expect(error.message).toMatch(pattern);
    expectNoPassword(error.message);
  });

  it.each([
    ['PAYSYNC_REDIS_URL', 'redis://127.0.0.1:6379'],
    ['PAYSYNC_REDIS_URL', 'rediss://user:p%40ss@cache.example.com:6380/3'],
    ['PAYSYNC_DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/test'],
    ['PAYSYNC_DATABASE_URL', 'postgresql://books:Xq9@Zk7@db.internal/ledger'],
    ['PAYSYNC_DATABASE_URL', 'postgres:///ledger'],
  ])('%s=%s is accepted', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).not.toThrow();
  });

  it('`paysync serve` with port 99999 in PAYSYNC_REDIS_URL exits 2 naming the variable', async () => {
    const result = await runCli(['serve'], {
      env: {
        PAYSYNC_REDIS_URL: 'redis://127.0.0.1:99999',
        PAYSYNC_DATABASE_URL: 'sqlite::memory:',
        PAYSYNC_WEBHOOK_SCHEME: 'none',
      },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'paysync serve: PAYSYNC_REDIS_URL="redis://127.0.0.1:99999" is invalid: has port 99999: use a port from 1 to 65535',
    ]);
  });
});
