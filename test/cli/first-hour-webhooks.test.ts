import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

/** Issue 40.10: `webhooks register` run twice gives one piece of advice, not two that disagree. */
const SECRET = 'whsec_Zmlyc3QtaG91ci1zZWNyZXQtZm9yLXRlc3Rz';
let sim: RunningSimulator;
let env: Record<string, string>;

beforeAll(async () => {
  // As `paysync sim` runs it: one fixed secret, already in PAYSYNC_WEBHOOK_SECRET.
  sim = await startSimulator({ port: 0, webhookSecret: SECRET });
  env = {
    PAYSYNC_UPSTREAM_URL: sim.url,
    PAYSYNC_API_KEY: sim.credentials.apiKey,
    PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
    PAYSYNC_WEBHOOK_SECRET: SECRET,
    PAYSYNC_LOG_LEVEL: 'silent',
  };
});
afterAll(async () => {
  await sim?.stop();
});

describe('paysync webhooks register, twice', () => {
  it('says to delete the duplicate now, and never that there is nothing to change', async () => {
    const url = 'http://127.0.0.1:8080/webhooks';
    const first = await runCliInProcess(['webhooks', 'register', '--url', url], { env });
    expect(first.code).toBe(0);
    const firstId = /Registered webhook (wh_\w+)/.exec(first.stdout)?.[1];
    expect(first.stdout).toContain('already holds: the secret needs no change');

    const second = await runCliInProcess(['webhooks', 'register', '--url', url], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(
      `Note: ${firstId} already points at this URL, so every event now arrives twice; delete the old registration now: paysync webhooks delete ${firstId}`,
    );
    expect(second.stdout).not.toContain('nothing to change');
    expect(second.stdout).not.toContain('once the new secret is in place');
  });
});
