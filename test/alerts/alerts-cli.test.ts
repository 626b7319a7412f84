import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAlertRuntime, raiseAlert } from '../../src/alerts/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createLogger } from '../../src/logger.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { stuckTransfer } from './support/alert-harness.ts';
import { startHttpCollector, type HttpCollector } from './support/sink-servers.ts';

let slack: HttpCollector | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  await slack?.close();
  await database?.cleanup();
  slack = undefined;
  database = undefined;
});

// One real process per command (`alerts list`, `start`, `alerts test`) proves the boundary; the
// other checks of output and exit codes run the same program in this process (issue 39).
describe('paysync alerts list, ack and resolve', () => {
  it('list open alerts, snooze one, resolve one; bad ids and durations get one line', async () => {
    database = await freshDatabase();
    const runtime = createAlertRuntime(loadConfig({}).alerts, createLogger({ level: 'silent' }), {
      now: () => new Date(),
      environment: 'sandbox',
    });
    const deps = { db: database.db, alerts: runtime };
    const first = await raiseAlert(deps, stuckTransfer('tr_cli1'));
    const second = await raiseAlert(deps, stuckTransfer('tr_cli2'));
    const env = { PAYSYNC_DATABASE_URL: database.url };

    const listed = await runCli(['alerts', 'list', '--open'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID +RAISED +SEVERITY +KIND +STATUS +SENT +TITLE$/m);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^ +${second.alert.id} +\\S+Z +critical +transfer_stuck +open +- +Transfer tr_cli2 has been pending for 3 hours$`,
        'm',
      ),
    );

    const acked = await runCliInProcess(
      ['alerts', 'ack', String(first.alert.id), '--note', 'on it', '--for', '4h'],
      { env },
    );
    expect(acked.stdout).toMatch(
      new RegExp(
        `^Alert ${first.alert.id} snoozed until \\S+Z: it notifies again then if still open.$`,
        'm',
      ),
    );
    const resolved = await runCliInProcess(['alerts', 'resolve', String(second.alert.id)], { env });
    expect(resolved.stdout).toBe(`Alert ${second.alert.id} resolved.\n`);

    const json = await runCliInProcess(['alerts', 'list', '--open', '--json'], { env });
    const open = JSON.parse(json.stdout) as {
      id: number;
      status: string;
      ackNote: string;
      deliveries: { sink: string; status: string }[];
    }[];
    expect(open.map((a) => [a.id, a.status, a.ackNote])).toEqual([
      [first.alert.id, 'acked', 'on it'],
    ]);
    expect(open[0]!.deliveries).toEqual([
      expect.objectContaining({ sink: 'log', status: 'pending' }),
    ]);

    const again = await runCliInProcess(['alerts', 'resolve', String(second.alert.id)], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^paysync alerts resolve: alert \d+ was resolved at \S+ \(by operator\); nothing to resolve\n$/,
    );
    const unknown = await runCliInProcess(['alerts', 'ack', '999'], { env });
    expect(unknown.stderr).toBe(
      'paysync alerts ack: no alert 999: see `paysync alerts list` for the ids\n',
    );
    const badFor = await runCliInProcess(['alerts', 'ack', '1', '--for', 'soon'], { env });
    expect(badFor.code).toBe(2);
    expect(badFor.stderr).toContain('--for must be a duration up to 30 days');
    await runtime.close();
  });
});

/** Acceptance 7: a bad rule file stops start-up with one line naming the file, line and problem. */
describe('the alert rule file', () => {
  const startEnv = (file: string) => ({
    PAYSYNC_ALERTS_FILE: file,
    PAYSYNC_UPSTREAM_URL: 'http://127.0.0.1:1',
    PAYSYNC_API_KEY: 'sk_sandbox_0123456789',
    PAYSYNC_MERCHANT_ID: 'm_1',
    PAYSYNC_ALERT_SLACK_URL: 'http://127.0.0.1:1/slack',
  });

  it.each([
    [
      'an unknown kind',
      'rules.yaml',
      'routes:\n  - kinds: [transfer_failed]\n    sinks: [slack]\n  - kinds: [transfer_faild]\n    sinks: [slack]\n',
      /, line 4: routes\.1\.kinds\.0: Invalid option: expected one of "transfer_failed"\|/,
    ],
    [
      'a sink that is not configured',
      'rules.yaml',
      'routes:\n  - severities: [critical]\n    sinks:\n      - slack\n      - email\n',
      /, line 5: routes\.0\.sinks: sink "email" is not configured → set PAYSYNC_ALERT_SMTP_URL or remove it from the route$/,
    ],
    [
      'broken YAML',
      'rules.yaml',
      'routes:\n  - kinds: [transfer_failed\n    sinks: [slack]\n',
      /, line 3: not valid YAML or JSON: /,
    ],
    [
      'a JSON file with a misspelt field',
      'rules.json',
      '{\n  "routes": [\n    { "sinks": ["slack"],\n      "severity": ["critical"] }\n  ]\n}\n',
      /, line 3: routes\.0: Unrecognized key: "severity"$/,
    ],
  ])('%s stops `paysync start` with one line', async (what, name, content, problem) => {
    const cwd = (await import('node:fs')).mkdtempSync(
      join((await import('node:os')).tmpdir(), 'paysync-rules-'),
    );
    const file = join(cwd, name);
    writeFileSync(file, content);
    // The first file runs a real `paysync start`; the others the same program in this process.
    const result =
      name === 'rules.yaml' && what === 'an unknown kind'
        ? await runCli(['start'], { env: startEnv(file), cwd })
        : await runCliInProcess(['start'], { env: startEnv(file), cwd });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`paysync start: PAYSYNC_ALERTS_FILE ${file}, line `);
    expect(lines[0]).toMatch(problem);
  });
});
describe('paysync alerts test', () => {
  it('exits 0 when every sink delivered, and 1 with a line per failed sink otherwise', async () => {
    slack = await startHttpCollector();
    const good = await runCli(['alerts', 'test'], {
      env: { PAYSYNC_ALERT_SLACK_URL: slack.url, PAYSYNC_LOG_LEVEL: 'silent' },
    });
    expect(good.stderr).toBe('');
    expect(good.stdout).toBe('slack: delivered\nlog: delivered\n');
    expect(good.code).toBe(0);
    expect(slack.received).toHaveLength(1);
    expect(slack.received[0]!.body).toContain('Test: paysync can reach this channel');

    slack.answer = 403;
    // A port nobody listens on: the collector's, once closed.
    const gone = await startHttpCollector();
    await gone.close();
    const bad = await runCliInProcess(['alerts', 'test'], {
      env: {
        PAYSYNC_ALERT_SLACK_URL: slack.url,
        PAYSYNC_ALERT_WEBHOOK_URL: gone.url,
        PAYSYNC_ALERT_WEBHOOK_SECRET: `whsec_${Buffer.from('0123456789abcdef').toString('base64')}`,
        PAYSYNC_LOG_LEVEL: 'silent',
      },
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('log: delivered\n');
    expect(bad.stderr.trim().split('\n')).toEqual([
      'slack: not delivered: Slack webhook answered HTTP 403: invalid_token',
      `webhook: not delivered: could not reach ${new URL(gone.url).origin}: ECONNREFUSED`,
    ]);
  });
});
