import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalText } from '../../src/cli/format/terminal-text.ts';
import { runCli } from '../support/run-cli.ts';
import {
  bookHostileTransfer,
  CONTROL,
  HOSTILE_REFERENCE as REFERENCE,
} from './support/hostile-text.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

/**
 * Issue 38.9 through a real process (bin/paysync.js, its own stdout); test/cli/cli-output.db.test.ts
 * covers the CLI's one way out (src/cli/output.ts) for more commands, in this process.
 *
 * A reference and a description that try to rewrite the terminal: clear the screen, a colour,
 * an OSC 8 link, a window title, a carriage return that hides what came before, a C1 CSI.
 */
const DESCRIPTION = 'fine\rEVIL\u001b]0;title\u0007 \u009b31mtext\u0001\u007f';

let database: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  database = await freshDatabase();
  env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_LOG_LEVEL: 'silent' };
  await bookHostileTransfer(database.db, 'tr_escapes', DESCRIPTION);
});
afterAll(async () => database?.cleanup());

describe("issue 38.9: the CLI's human output carries no control characters", () => {
  it('paysync show prints the reference without its escape sequences', async () => {
    const result = await runCli(['show', 'tr_escapes'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(CONTROL);
    expect(result.stdout).toContain('payout-42');
  });

  it('paysync list transfers prints the reference without its escape sequences', async () => {
    const result = await runCli(['list', 'transfers'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(CONTROL);
    expect(result.stdout).toContain('payout-42');
  });

  it('--json keeps the exact text', async () => {
    const result = await runCli(['show', 'tr_escapes', '--json'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(JSON.stringify(REFERENCE));
  });

  it('terminalText strips C0 (but newline and tab), DEL, C1 and whole escape sequences', () => {
    expect(terminalText(REFERENCE)).toBe('payout-42');
    expect(terminalText(DESCRIPTION)).toBe('fineEVIL text');
    expect(terminalText('a\tb\nc')).toBe('a\tb\nc');
    expect(terminalText('Ünïcødé ✓ — ok')).toBe('Ünïcødé ✓ — ok');
  });
});
