import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

describe('paysync serve refuses to start, in one line', () => {
  it('with the none scheme in live, before touching anything', async () => {
    const result = await runCli(['serve'], {
      env: { PAYSYNC_ENVIRONMENT: 'live', PAYSYNC_WEBHOOK_SCHEME: 'none' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      /^paysync serve: PAYSYNC_WEBHOOK_SCHEME=none is refused when PAYSYNC_ENVIRONMENT=live.*PAYSYNC_ALLOW_UNSIGNED=true/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('without a signing secret for the standard scheme', async () => {
    // Refused at the config, before anything starts: in this process (issue 39).
    const result = await runCliInProcess(['serve']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/PAYSYNC_WEBHOOK_SECRET is not set/);
  });

  it('when migrations are pending, telling the operator to run paysync migrate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysync-serve-'));
    const result = await runCli(['serve'], {
      env: {
        PAYSYNC_WEBHOOK_SCHEME: 'none',
        PAYSYNC_DATABASE_URL: `sqlite:${join(dir, 'empty.db')}`,
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^paysync serve: .* migration\(s\) pending .*run `paysync migrate` first$/,
    );
  });
});
