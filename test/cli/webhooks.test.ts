import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts';
import { closedPort, runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

// `webhooks register` runs as a real process once, to prove the boundary; the other checks of
// output and exit codes run the program in this process (runCliInProcess, issue 39).

let sim: RunningSimulator;
let env: Record<string, string>;

beforeAll(async () => {
  // No fixed secret: the simulator makes one per webhook and hands it back once, on creation.
  sim = await startSimulator({ port: 0 });
  env = {
    PAYSYNC_UPSTREAM_URL: sim.url,
    PAYSYNC_API_KEY: sim.credentials.apiKey,
    PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
    PAYSYNC_LOG_LEVEL: 'info',
  };
});
afterAll(async () => {
  await sim?.stop();
});

describe('paysync webhooks', () => {
  it('register prints the exact PAYSYNC_WEBHOOK_SECRET line, list shows it, delete removes it', async () => {
    const url = 'https://paysync.example.com/webhooks';
    const registered = await runCli(['webhooks', 'register', '--url', url], { env });
    expect(registered.stderr).toBe('');
    expect(registered.code).toBe(0);
    const id = /Registered webhook (wh_\w+)/.exec(registered.stdout)?.[1];
    expect(id).toBeDefined();
    const secretLine = registered.stdout
      .split('\n')
      .find((l) => l.startsWith('PAYSYNC_WEBHOOK_SECRET='));
    expect(secretLine).toMatch(/^PAYSYNC_WEBHOOK_SECRET=whsec_[A-Za-z0-9+/=]+$/);
    expect(registered.stdout).toContain('comma-separated');

    const listed = await runCliInProcess(['webhooks', 'list'], { env });
    expect(listed.code).toBe(0);
    const row = listed.stdout.split('\n').find((l) => l.startsWith(id!));
    expect(row).toContain(url);
    expect(listed.stdout).not.toContain('whsec_');

    const json = await runCliInProcess(['webhooks', 'list', '--json'], { env });
    const hooks = JSON.parse(json.stdout) as { id: string; url: string; secret?: string }[];
    expect(hooks.find((h) => h.id === id)).toMatchObject({ id, url });
    expect(json.stdout).not.toContain('whsec_');

    const deleted = await runCliInProcess(['webhooks', 'delete', id!], { env });
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain(`Deleted webhook ${id}`);
    const after = await runCliInProcess(['webhooks', 'list', '--json'], { env });
    expect((JSON.parse(after.stdout) as { id: string }[]).map((h) => h.id)).not.toContain(id);

    const again = await runCliInProcess(['webhooks', 'delete', id!], { env });
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toContain(`the service has no webhook ${id} (404)`);
  });

  it('with rotation in progress, shows both secrets comma-separated with the old one as a placeholder', async () => {
    const result = await runCliInProcess(
      ['webhooks', 'register', '--url', 'http://127.0.0.1:8080/webhooks'],
      { env: { ...env, PAYSYNC_WEBHOOK_SECRET: 'whsec_b2xkc2VjcmV0b2xkc2VjcmV0' } },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^PAYSYNC_WEBHOOK_SECRET=whsec_\S+,<your current secret>$/m);
    expect(result.stdout).not.toContain('whsec_b2xkc2VjcmV0b2xkc2VjcmV0');
  });

  it.each([['ftp://example.com/webhooks'], ['example.com/webhooks'], ['not a url']])(
    'register --url %j exits 2 naming --url and what it accepts, calling nothing',
    async (url) => {
      const result = await runCliInProcess(['webhooks', 'register', '--url', url], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--url');
      expect(result.stderr).toContain('http:// or https://');
      expect(result.stdout).toBe('');
    },
  );

  it('delete of something that is not a wh_ id exits 2', async () => {
    const result = await runCliInProcess(['webhooks', 'delete', 'tr_abc'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a webhook id');
  });

  it('without credentials exits 2 naming the missing variables', async () => {
    const result = await runCliInProcess(['webhooks', 'list'], {});
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('PAYSYNC_UPSTREAM_URL, PAYSYNC_API_KEY, PAYSYNC_MERCHANT_ID');
  });

  it('an unreachable service is one line, exit 1', async () => {
    const port = await closedPort();
    const result = await runCliInProcess(['webhooks', 'list'], {
      env: { ...env, PAYSYNC_UPSTREAM_URL: `http://127.0.0.1:${port}` },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`cannot reach the service at http://127.0.0.1:${port}`);
  });
});
