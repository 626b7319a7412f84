import { afterEach, describe, expect, it } from 'vitest';
import { recordCredentialFailure } from '../../src/service-state/index.ts';
import { closedPort } from '../support/run-cli.ts';
import { startReceiverFixture, type ReceiverFixture } from './support/receiver-fixture.ts';

let fixture: ReceiverFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${fixture!.url}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('receiver: health and readiness', () => {
  it('is healthy and ready when the database and Redis answer', async () => {
    fixture = await startReceiverFixture();
    expect(await get('/healthz')).toEqual({ status: 200, body: { ok: true } });
    expect(await get('/readyz')).toEqual({ status: 200, body: { ready: true, reasons: [] } });
  });

  it('is healthy but not ready, saying why, when Redis is down', async () => {
    fixture = await startReceiverFixture({ redisUrl: `redis://127.0.0.1:${await closedPort()}` });
    expect((await get('/healthz')).status).toBe(200);
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.ready).toBe(false);
    expect(ready.body.reasons).toEqual([
      expect.stringMatching(/^Redis does not answer .*PAYSYNC_REDIS_URL/),
    ]);
  });

  it('is not ready, saying why and what to fix, after the service rejected the credentials', async () => {
    fixture = await startReceiverFixture();
    await recordCredentialFailure(fixture.database.db, {
      reason: '401 wrong_credentials',
      operation: 'listTransfers',
      at: '2025-03-01T10:00:00.000Z',
    });
    expect(await get('/readyz')).toEqual({
      status: 503,
      body: {
        ready: false,
        reasons: [
          'service rejected the credentials at 2025-03-01T10:00:00.000Z (401 wrong_credentials): fix PAYSYNC_API_KEY/PAYSYNC_MERCHANT_ID',
        ],
      },
    });
  });

  it('is not ready when the database does not answer', async () => {
    fixture = await startReceiverFixture();
    await fixture.database.close();
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.reasons).toEqual([expect.stringMatching(/^database does not answer/)]);
  });
});
