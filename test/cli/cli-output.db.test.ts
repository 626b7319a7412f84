import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import {
  bookHostileTransfer,
  CONTROL,
  HOSTILE_REFERENCE as REFERENCE,
} from './support/hostile-text.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

/**
 * Issue 38.9: the CLI's human output goes out one way (src/cli/output.ts), which strips escape
 * sequences and control characters, whatever the command and whoever wrote the text: the
 * service (a transfer's reference and description), a remote server (an alert sink's answer,
 * quoted in the failure line on stderr) or the user (an id echoed in an error). `--json` keeps
 * the exact text. The CLI runs in this process (runCliInProcess), so its stdout and stderr are
 * what the console and the process streams were given.
 */
const DESCRIPTION = 'fine\u001b[31m red\u001b]0;title\u0007 \u009b31mtext\u0001\u007f';

let database: TestDatabase;
let env: Record<string, string>;
/** A Slack webhook that refuses with a body trying to retitle the window and clear the screen. */
let hostileSink: Server;
let hostileSinkUrl: string;

beforeAll(async () => {
  database = await freshDatabase();
  env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_LOG_LEVEL: 'silent' };
  await bookHostileTransfer(database.db, 'tr_clioutput', DESCRIPTION);
  hostileSink = createServer((request, response) => {
    request.resume();
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end('\u001b]0;pwned\u0007\u001b[2Jno\u001b[31m way\u0007');
  });
  await new Promise<void>((resolve) => hostileSink.listen(0, '127.0.0.1', resolve));
  hostileSinkUrl = `http://127.0.0.1:${(hostileSink.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise((resolve) => hostileSink?.close(resolve));
  await database?.cleanup();
});

describe(`issue 38.9: one way out for the CLI's human output, on ${testDialect()}`, () => {
  it('paysync show: the description and the reference come out without control characters', async () => {
    const result = await runCliInProcess(['show', 'tr_clioutput'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(CONTROL);
    expect(result.stdout).toContain('payout-42');
    expect(result.stdout).toContain('fine red text');
  });

  it('paysync list transfers: the same', async () => {
    const result = await runCliInProcess(['list', 'transfers'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(CONTROL);
    expect(result.stdout).toContain('payout-42');
  });

  it('--json keeps the exact text', async () => {
    const result = await runCliInProcess(['show', 'tr_clioutput', '--json'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(JSON.stringify(REFERENCE));
    expect(result.stdout).toContain(JSON.stringify(DESCRIPTION));
  });

  it("paysync alerts test: a sink's hostile answer, quoted on stderr, comes out stripped", async () => {
    const result = await runCliInProcess(['alerts', 'test', '--sink', 'slack'], {
      env: { PAYSYNC_ALERT_SLACK_URL: hostileSinkUrl, PAYSYNC_LOG_LEVEL: 'silent' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(CONTROL);
    expect(result.stderr.trim()).toBe(
      'slack: not delivered: Slack webhook answered HTTP 500: no way',
    );
  });

  it("a usage error's line on stderr, which quotes the argument, carries no control character either", async () => {
    const result = await runCliInProcess(['show', 'tr_\u001b]0;pwned\u0007x\u001b[2J'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"tr_x" is not a resource id');
    expect(result.stderr).not.toMatch(CONTROL);
  });
});
