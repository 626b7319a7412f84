import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createSignatureVerifier } from '../../src/receiver/index.ts';

function capturingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ level: 'info', pretty: false, destination }), lines };
}

function refusal(env: Record<string, string>): ConfigError {
  try {
    createSignatureVerifier(loadConfig(env), capturingLogger().logger);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('receiver signing set-up, checked at start-up', () => {
  it('refuses the none scheme in live unless PAYSYNC_ALLOW_UNSIGNED=true', () => {
    const error = refusal({ PAYSYNC_ENVIRONMENT: 'live', PAYSYNC_WEBHOOK_SCHEME: 'none' });
    expect(error.variable).toBe('PAYSYNC_WEBHOOK_SCHEME');
    expect(error.message).toMatch(
      /refused when PAYSYNC_ENVIRONMENT=live.*PAYSYNC_ALLOW_UNSIGNED=true/,
    );
    expect(error.message).not.toContain('\n');

    const { logger, lines } = capturingLogger();
    const verify = createSignatureVerifier(
      loadConfig({
        PAYSYNC_ENVIRONMENT: 'live',
        PAYSYNC_WEBHOOK_SCHEME: 'none',
        PAYSYNC_ALLOW_UNSIGNED: 'true',
      }),
      logger,
    );
    expect(verify(Buffer.from('{}'), {}, Date.now())).toEqual({ ok: true });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 40,
      msg: expect.stringMatching(/NOT verified/),
    });
  });

  it('runs the none scheme in sandbox, with the warning line', () => {
    const { logger, lines } = capturingLogger();
    createSignatureVerifier(loadConfig({ PAYSYNC_WEBHOOK_SCHEME: 'none' }), logger);
    expect(lines.join('')).toMatch(/NOT verified/);
  });

  it.each([
    [{}, 'PAYSYNC_WEBHOOK_SECRET', /PAYSYNC_WEBHOOK_SECRET is not set: the standard scheme needs/],
    [{ PAYSYNC_WEBHOOK_SCHEME: 'hmac' }, 'PAYSYNC_WEBHOOK_SECRET', /the hmac scheme needs/],
    [
      { PAYSYNC_WEBHOOK_SECRET: 'whsec_c2VjcmV0,whsec_not base64!' },
      'PAYSYNC_WEBHOOK_SECRET',
      /secret number 2 is not whsec_<base64>/,
    ],
  ])('refuses %j naming %s', (env, variable, message) => {
    const error = refusal(env as Record<string, string>);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('not base64!');
  });
});
