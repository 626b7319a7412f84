import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, destination };
}

const API_KEY = 'sk_live_8f2c1d9e7a6b5c4d';

describe('logger redaction', () => {
  it('keeps the ApiKey header of a logged request out of the line', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ destination });
    logger.info(
      { req: { method: 'GET', url: '/balance', headers: { ApiKey: API_KEY, MerchantId: 'm_42' } } },
      'upstream request',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(API_KEY);
    const parsed = JSON.parse(lines[0]!);
    expect(parsed.req.headers.ApiKey).toBe('[REDACTED]');
    expect(parsed.req.headers.MerchantId).toBe('m_42');
  });

  it('scrubs known secret values wherever they appear, even in a message', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ destination, secrets: [API_KEY, 'whsec_abcdef123'] });
    logger.warn(
      { detail: { nested: [`key=${API_KEY}`] } },
      `signature with whsec_abcdef123 failed`,
    );
    expect(lines.join('\n')).not.toContain(API_KEY);
    expect(lines.join('\n')).not.toContain('whsec_abcdef123');
    expect(lines[0]).toContain('[REDACTED]');
  });

  it('hides passwords in database and Redis URLs', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ destination });
    logger.info(
      { databaseUrl: 'postgres://app:pgS3cret@db:5432/books' },
      'connecting to redis://:r3disPw@cache:6379',
    );
    expect(lines[0]).not.toContain('pgS3cret');
    expect(lines[0]).not.toContain('r3disPw');
    expect(lines[0]).toContain('postgres://app:***@db:5432/books');
  });

  it('writes UTC ISO 8601 times with milliseconds', () => {
    const { lines, destination } = capture();
    createLogger({ destination }).info('tick');
    expect(JSON.parse(lines[0]!).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
