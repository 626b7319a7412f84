import { afterEach, describe, expect, it } from 'vitest';
import { readCredentialFailure } from '../../src/service-state/index.ts';
import { runCli } from '../support/run-cli.ts';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, type DaemonFixture } from './support/daemon-fixture.ts';
import { describeState, waitForCatchUp } from './support/end-state.ts';
import { until } from '../support/until.ts';

const WRONG_KEY = 'sk_sandbox_this_key_is_wrong_0000';

let fixture: DaemonFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

/** Acceptance 5: a 401 pauses syncing for every worker, and /readyz and doctor say why. */
describe(`refused credentials, on ${testDialect()}`, () => {
  it('pause the sync queue and make /readyz say why; a start with good ones resumes', async () => {
    fixture = await createDaemonFixture({
      env: {
        PAYSYNC_LOG_LEVEL: 'warn',
        PAYSYNC_RECOVERY_CRON: '*/1 * * * * *',
        PAYSYNC_RECOVERY_AFTER_SECONDS: '2',
      },
    });
    const daemon = await fixture.startDaemon(['receiver', 'workers', 'scheduler'], {
      PAYSYNC_API_KEY: WRONG_KEY,
    });
    await fixture.registerWebhook();
    const transfer = (reference: string) =>
      fixture!.sim.control.createTransfer({
        amount: 5000,
        reference,
        destination: { number: '+221771234567' },
      });
    transfer('cred-1');

    expect(
      await until(() => daemon.queues.sync.isPaused(), { message: 'the sync queue paused' }),
    ).toBe(true);
    const readyz = await fetch(`${daemon.receiver!.url}/readyz`);
    expect(readyz.status).toBe(503);
    const body = (await readyz.json()) as { reasons: string[] };
    expect(body.reasons.join(' ')).toMatch(/rejected the credentials .*401 wrong_credentials/);
    expect(await readCredentialFailure(fixture.database.db)).toMatchObject({
      reason: '401 wrong_credentials',
    });

    // Paused means no more calls with the refused key: new events wait in the queue.
    transfer('cred-2');
    transfer('cred-3');
    fixture.sim.control.advance(10_000);
    const waiting = await until(
      async () =>
        (await daemon.queues.sync.getJobCounts('waiting', 'paused')) as Record<string, number>,
      {
        accept: (counts) => (counts.waiting ?? 0) + (counts.paused ?? 0) >= 2,
        message: 'two sync jobs held back',
      },
    );
    expect((waiting.waiting ?? 0) + (waiting.paused ?? 0)).toBeGreaterThanOrEqual(2);
    const refusals = fixture.logs.filter((line) => line.includes('refused the credentials (401)'));
    expect(refusals).toHaveLength(1);
    expect(fixture.logs.join('')).not.toContain(WRONG_KEY);

    const doctor = await runCli(['doctor'], { env: fixture.env, timeoutMs: 20_000 });
    expect(doctor.stdout).toMatch(/^✖ syncing +paused: the service refused the credentials/m);

    // A start with the right key checks them once, clears the record and resumes.
    await daemon.stop();
    const restarted = await fixture.startDaemon(['receiver', 'workers', 'scheduler']);
    expect(restarted.credentialCheck()).toMatchObject({ state: 'resumed' });
    expect(await restarted.queues.sync.isPaused()).toBe(false);
    expect(await readCredentialFailure(fixture.database.db)).toBeUndefined();
    expect((await fetch(`${restarted.receiver!.url}/readyz`)).status).toBe(200);
    const state = await waitForCatchUp(fixture.database.db, fixture.sim, 30_000);
    expect(state.statusMismatches, JSON.stringify(describeState(state))).toEqual([]);
    expect(state.openInbox).toEqual({});
  }, 90_000);

  it('stay paused when a start finds the key still refused', async () => {
    fixture = await createDaemonFixture({ env: { PAYSYNC_LOG_LEVEL: 'warn' } });
    const first = await fixture.startDaemon(['workers'], { PAYSYNC_API_KEY: WRONG_KEY });
    await first.stop();
    // As if a worker had seen a 401 before this start.
    const { recordCredentialFailure } = await import('../../src/service-state/index.ts');
    await recordCredentialFailure(fixture.database.db, {
      reason: '401 wrong_credentials',
      operation: 'listTransfers',
      at: new Date().toISOString(),
    });
    const daemon = await fixture.startDaemon(['workers'], { PAYSYNC_API_KEY: WRONG_KEY });
    expect(daemon.credentialCheck()).toMatchObject({ state: 'still_refused' });
    expect(await daemon.queues.sync.isPaused()).toBe(true);
    expect(fixture.logs.join('')).toMatch(/still refuses the credentials: syncing stays paused/);
    expect(await readCredentialFailure(fixture.database.db)).toBeDefined();
  }, 30_000);
});
