import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type SecretsKey } from '../../src/config/index.ts';
import { checkEndpointSecrets } from '../../src/doctor/index.ts';
import {
  addEndpoint,
  EndpointError,
  pingEndpoint,
  requireEndpoint,
  resealEndpointSecrets,
  rotateEndpointSecret,
  type EndpointContext,
} from '../../src/relay/index.ts';
import { runCli } from '../support/run-cli.ts';
import { startConsumer } from '../support/relay-endpoint-rows.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

const key = (id: string): SecretsKey => ({ id, key: randomBytes(32).toString('base64') });
const K1 = key('k1');
const K2 = key('k2');
const RULES = { allowHttp: false, allowedHosts: [] as string[] };

let database: TestDatabase;
let consumer: Awaited<ReturnType<typeof startConsumer>>;

beforeAll(async () => {
  database = await freshDatabase();
  consumer = await startConsumer(() => ({ status: 200, body: 'ok' }));
});
afterAll(async () => {
  await consumer?.close();
  await database?.cleanup();
});

const context = (keys: readonly SecretsKey[], environment: 'sandbox' | 'live' = 'sandbox') =>
  ({
    db: database.db,
    now: new Date(),
    environment,
    relay: { ...RULES, secretsKeys: keys },
  }) satisfies EndpointContext;

async function storedSecret(endpointId: string): Promise<string> {
  return (await requireEndpoint(database.db, endpointId)).secret;
}

/** Pings the endpoint with `keys` and says whether `secret` verifies what the consumer got. */
async function pingVerifies(endpointId: string, keys: readonly SecretsKey[], secret: string) {
  const before = consumer.received.length;
  const result = await pingEndpoint(
    await requireEndpoint(database.db, endpointId),
    { ...RULES, timeoutMs: 5_000, secretsKeys: keys },
    'sandbox',
    new Date(),
  );
  if (result.outcome !== 'delivered') return result.error ?? result.outcome;
  const request = consumer.received[before]!;
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
  return 'verified';
}

describe('issue 38.8: relay endpoint secrets are encrypted at rest', () => {
  it('stores a new secret sealed with the current key, never in plain text, and signs with it', async () => {
    const added = await addEndpoint(context([K1]), { url: consumer.url });
    const stored = await storedSecret(added.endpoint.id);
    expect(stored).toMatch(/^enc:v1:k1:[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain(added.secret);
    expect(stored).not.toContain(added.secret.replace(/^whsec_/, ''));
    expect(await pingVerifies(added.endpoint.id, [K1], added.secret)).toBe('verified');
    const rotated = await rotateEndpointSecret(database.db, added.endpoint.id, new Date(), {
      environment: 'sandbox',
      secretsKeys: [K1],
    });
    const row = await requireEndpoint(database.db, added.endpoint.id);
    expect(row.secret).toMatch(/^enc:v1:k1:/);
    expect(row.previous_secret).toBe(stored);
    expect(await pingVerifies(added.endpoint.id, [K1], rotated.secret)).toBe('verified');
  });

  it('a plain-text row keeps working, and reseal-secrets seals it; a key rotation re-seals every row', async () => {
    // Written in sandbox without a key (or before encryption): plain text.
    const plain = await addEndpoint(context([]), { url: consumer.url });
    expect(await storedSecret(plain.endpoint.id)).toBe(plain.secret);
    expect(await pingVerifies(plain.endpoint.id, [K1], plain.secret)).toBe('verified');

    const first = await resealEndpointSecrets(database.db, [K1], new Date());
    expect(first.resealed).toBeGreaterThanOrEqual(1);
    expect(await storedSecret(plain.endpoint.id)).toMatch(/^enc:v1:k1:/);
    expect(await pingVerifies(plain.endpoint.id, [K1], plain.secret)).toBe('verified');
    expect((await resealEndpointSecrets(database.db, [K1], new Date())).resealed).toBe(0);

    // Rotation: k2 first, k1 kept until every row is sealed with k2, then k1 leaves.
    const rotation = await resealEndpointSecrets(database.db, [K2, K1], new Date());
    expect(rotation).toMatchObject({ keyId: 'k2', current: 0 });
    expect(await storedSecret(plain.endpoint.id)).toMatch(/^enc:v1:k2:/);
    expect(await pingVerifies(plain.endpoint.id, [K2], plain.secret)).toBe('verified');

    // Without the key that sealed it, the attempt fails and says which key is missing.
    expect(await pingVerifies(plain.endpoint.id, [K1], plain.secret)).toMatch(
      /sealed with key "k2", which PAYSYNC_SECRETS_KEY does not hold/,
    );
    // A key under the same id that is not the right one does not open it either.
    expect(await pingVerifies(plain.endpoint.id, [key('k2')], plain.secret)).toMatch(
      /does not open with key "k2"/,
    );
  });

  it('in live without PAYSYNC_SECRETS_KEY, refuses to add or rotate an endpoint (nothing stored)', async () => {
    const refused = await addEndpoint(context([], 'live'), {
      url: 'https://93.184.216.34/hook',
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(EndpointError);
    expect((refused as EndpointError).refusal).toEqual({
      code: 'secrets_key_missing',
      purpose: 'store',
    });
    const live = await addEndpoint(context([K1], 'live'), { url: 'https://93.184.216.34/hook' });
    await expect(
      rotateEndpointSecret(database.db, live.endpoint.id, new Date(), { environment: 'live' }),
    ).rejects.toThrow(/PAYSYNC_SECRETS_KEY is not set/);
    expect(await storedSecret(live.endpoint.id)).toMatch(/^enc:v1:k1:/);
  });

  it('PAYSYNC_SECRETS_KEY: id:key entries of 32 bytes, first seals; a bad value is not echoed', () => {
    const config = loadConfig({ PAYSYNC_SECRETS_KEY: `k2:${K2.key}, k1:${K1.key}` });
    expect(config.relay.secretsKeys).toEqual([K2, K1]);
    expect(loadConfig({}).relay.secretsKeys).toEqual([]);
    const short = `k1:${randomBytes(16).toString('base64')}`;
    expect(() => loadConfig({ PAYSYNC_SECRETS_KEY: short })).toThrow(/PAYSYNC_SECRETS_KEY/);
    try {
      loadConfig({ PAYSYNC_SECRETS_KEY: short });
    } catch (error) {
      expect((error as Error).message).not.toContain(short.slice(3));
    }
    expect(() => loadConfig({ PAYSYNC_SECRETS_KEY: `k1:${K1.key},k1:${K2.key}` })).toThrow(/twice/);
  });

  it('paysync endpoints reseal-secrets seals the rows with the key of the environment', async () => {
    const plain = await addEndpoint(context([]), { url: consumer.url });
    const env = {
      PAYSYNC_DATABASE_URL: database.url,
      PAYSYNC_LOG_LEVEL: 'silent',
      // k1 still opens the rows an earlier test sealed with it.
      PAYSYNC_SECRETS_KEY: `k2:${K2.key},k1:${K1.key}`,
    };
    const result = await runCli(['endpoints', 'reseal-secrets', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ keyId: 'k2' });
    expect(await storedSecret(plain.endpoint.id)).toMatch(/^enc:v1:k2:/);
    const none = await runCli(['endpoints', 'reseal-secrets'], {
      env: { ...env, PAYSYNC_SECRETS_KEY: '' },
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/PAYSYNC_SECRETS_KEY is not set/);
  });

  it('paysync doctor flags plain-text secrets in live and a missing key; passes once re-sealed', async () => {
    await addEndpoint(context([]), { url: consumer.url });
    const live = (keys: readonly SecretsKey[]) =>
      loadConfig({
        PAYSYNC_DATABASE_URL: database.url,
        PAYSYNC_ENVIRONMENT: 'live',
        PAYSYNC_SECRETS_KEY: keys.map((k) => `${k.id}:${k.key}`).join(','),
      });
    const plain = await checkEndpointSecrets(live([K2, K1]));
    expect(plain).toMatchObject({ name: 'secrets', ok: false });
    expect(plain!.detail).toMatch(/stored in plain text/);
    expect(plain!.hint).toMatch(/reseal-secrets/);
    expect(await checkEndpointSecrets(live([]))).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/sealed with key "k2".*does not hold/),
    });
    await resealEndpointSecrets(database.db, [K2, K1], new Date());
    expect(await checkEndpointSecrets(live([K2]))).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/endpoint secrets sealed with the current key$/),
    });
  });
});
