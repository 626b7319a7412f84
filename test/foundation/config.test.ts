import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  loadConfig,
  readEnvironment,
  requireServiceCredentials,
} from '../../src/config/index.ts';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('config', () => {
  it('applies the documented defaults and freezes the result', () => {
    const config = loadConfig({});
    expect(config.environment).toBe('sandbox');
    expect(config.databaseUrl).toBe('sqlite:./data/paysync.db');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.port).toBe(8080);
    expect(config.heapGrowthPercent).toBe(50);
    expect(config.upstream).toEqual({
      rps: 10,
      timeoutMs: 10_000,
      maxRetries: 8,
      concurrency: 8,
      receiptsShare: 0.2,
    });
    expect(config.webhook).toEqual({
      path: '/webhooks',
      scheme: 'standard',
      hmacHeader: 'x-signature',
      hmacEncoding: 'hex',
      hmacTimestampHeader: undefined,
      allowUnsigned: false,
      maxBytes: 262_144,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it.each([
    [
      'PAYSYNC_ENVIRONMENT',
      'prod',
      /PAYSYNC_ENVIRONMENT="prod" is invalid: must be one of: live, sandbox/,
    ],
    ['PAYSYNC_PORT', 'eighty', /PAYSYNC_PORT="eighty" is invalid: must be a whole number/],
    ['PAYSYNC_PORT', '70000', /PAYSYNC_PORT="70000" is invalid: must be at most 65535/],
    [
      'PAYSYNC_HEAP_GROWTH_PERCENT',
      '-5',
      /PAYSYNC_HEAP_GROWTH_PERCENT="-5" is invalid: must be 0 or more/,
    ],
    [
      'PAYSYNC_UPSTREAM_URL',
      'ftp://x',
      /PAYSYNC_UPSTREAM_URL="ftp:\/\/x" is invalid: must be an http/,
    ],
    [
      'PAYSYNC_DATABASE_URL',
      'mysql://db',
      /PAYSYNC_DATABASE_URL="mysql:\/\/db" is invalid: must be sqlite:/,
    ],
    [
      'PAYSYNC_REDIS_URL',
      'localhost:6379',
      /PAYSYNC_REDIS_URL="localhost:6379" is invalid: must be a redis:\/\//,
    ],
    ['PAYSYNC_LOG_LEVEL', 'loud', /PAYSYNC_LOG_LEVEL="loud" is invalid: must be one of: fatal/],
    ['PAYSYNC_UPSTREAM_RPS', '0', /PAYSYNC_UPSTREAM_RPS="0" is invalid: must be at least 1/],
    ['PAYSYNC_WEBHOOK_PATH', 'hooks', /PAYSYNC_WEBHOOK_PATH="hooks" is invalid: must be a path/],
    [
      'PAYSYNC_WEBHOOK_SCHEME',
      'svix',
      /PAYSYNC_WEBHOOK_SCHEME="svix" is invalid: must be one of: standard, hmac, none/,
    ],
    [
      'PAYSYNC_WEBHOOK_HMAC_ENCODING',
      'hexa',
      /PAYSYNC_WEBHOOK_HMAC_ENCODING="hexa" is invalid: must be one of: hex, base64/,
    ],
    [
      'PAYSYNC_WEBHOOK_HMAC_HEADER',
      'x sig',
      /PAYSYNC_WEBHOOK_HMAC_HEADER="x sig" is invalid: must be an HTTP header name/,
    ],
    [
      'PAYSYNC_ALLOW_UNSIGNED',
      'yes',
      /PAYSYNC_ALLOW_UNSIGNED="yes" is invalid: must be true or false/,
    ],
    [
      'PAYSYNC_WEBHOOK_MAX_BYTES',
      '0',
      /PAYSYNC_WEBHOOK_MAX_BYTES="0" is invalid: must be at least 1/,
    ],
    [
      'PAYSYNC_RECEIVER_MAX_BACKLOG',
      'lots',
      /PAYSYNC_RECEIVER_MAX_BACKLOG="lots" is invalid: must be a whole number/,
    ],
    [
      'PAYSYNC_RECEIVER_MAX_IN_FLIGHT',
      '0',
      /PAYSYNC_RECEIVER_MAX_IN_FLIGHT="0" is invalid: must be at least 1/,
    ],
  ])(
    'rejects %s=%s with one line naming the variable and what is accepted',
    (name, value, pattern) => {
      const error = configError({ [name]: value });
      expect(error.variable).toBe(name);
      expect(error.message).toMatch(pattern);
      expect(error.message).not.toContain('\n');
    },
  );

  it('never echoes a password inside a database URL', () => {
    const error = configError({ PAYSYNC_DATABASE_URL: 'mysql://app:hunter2secret@db/x' });
    expect(error.message).toContain('mysql://app:***@db/x');
    expect(error.message).not.toContain('hunter2secret');
  });

  it('reads .env in the working directory, and real variables win over it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysync-env-'));
    writeFileSync(join(dir, '.env'), 'PAYSYNC_PORT=9090\nPAYSYNC_ENVIRONMENT=live\n');
    const config = loadConfig(readEnvironment({ PAYSYNC_ENVIRONMENT: 'sandbox' }, dir));
    expect(config.port).toBe(9090);
    expect(config.environment).toBe('sandbox');
  });

  it('reads the receiver capacity, with its defaults', () => {
    expect(loadConfig({}).receiver).toEqual({
      maxBacklog: 50_000,
      maxInFlight: 256,
      connectionsPerClient: 128,
      trustProxy: false,
    });
    expect(
      loadConfig({
        PAYSYNC_RECEIVER_MAX_BACKLOG: '200',
        PAYSYNC_RECEIVER_MAX_IN_FLIGHT: '8',
        PAYSYNC_CONNECTIONS_PER_CLIENT: '0',
        PAYSYNC_TRUST_PROXY: 'loopback, 10.0.0.0/8',
      }).receiver,
    ).toEqual({
      maxBacklog: 200,
      maxInFlight: 8,
      connectionsPerClient: 0,
      trustProxy: ['loopback', '10.0.0.0/8'],
    });
    expect(loadConfig({ PAYSYNC_TRUST_PROXY: '1' }).receiver.trustProxy).toBe(1);
    expect(() => loadConfig({ PAYSYNC_TRUST_PROXY: 'a b' })).toThrow('PAYSYNC_TRUST_PROXY');
  });

  it('splits comma-separated webhook secrets for rotation', () => {
    const config = loadConfig({ PAYSYNC_WEBHOOK_SECRET: 'whsec_new, whsec_old' });
    expect(config.webhookSecrets).toEqual(['whsec_new', 'whsec_old']);
  });

  it('reads the receiver settings, header names lower-cased', () => {
    const config = loadConfig({
      PAYSYNC_WEBHOOK_PATH: '/hooks/payments',
      PAYSYNC_WEBHOOK_SCHEME: 'hmac',
      PAYSYNC_WEBHOOK_HMAC_HEADER: 'X-Hub-Signature',
      PAYSYNC_WEBHOOK_HMAC_ENCODING: 'base64',
      PAYSYNC_WEBHOOK_HMAC_TIMESTAMP_HEADER: 'X-Timestamp',
      PAYSYNC_ALLOW_UNSIGNED: 'true',
      PAYSYNC_WEBHOOK_MAX_BYTES: '1024',
    });
    expect(config.webhook).toEqual({
      path: '/hooks/payments',
      scheme: 'hmac',
      hmacHeader: 'x-hub-signature',
      hmacEncoding: 'base64',
      hmacTimestampHeader: 'x-timestamp',
      allowUnsigned: true,
      maxBytes: 1024,
    });
  });

  it('names every missing credential when a command needs the service', () => {
    const config = loadConfig({ PAYSYNC_UPSTREAM_URL: 'https://api.example.test' });
    expect(() => requireServiceCredentials(config)).toThrow(
      /^PAYSYNC_API_KEY, PAYSYNC_MERCHANT_ID are not set: this command talks to the payment service/,
    );
    const full = loadConfig({
      PAYSYNC_UPSTREAM_URL: 'https://api.example.test/',
      PAYSYNC_API_KEY: 'key_1234',
      PAYSYNC_MERCHANT_ID: 'm_1',
    });
    expect(requireServiceCredentials(full)).toEqual({
      upstreamUrl: 'https://api.example.test',
      apiKey: 'key_1234',
      merchantId: 'm_1',
      environment: 'sandbox',
    });
  });
});
