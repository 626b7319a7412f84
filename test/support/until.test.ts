import { describe, expect, it } from 'vitest';
import { until, UntilTimeoutError } from './until.ts';

describe('until: the one wait helper of the tests', () => {
  it('returns the first accepted value as soon as the condition holds', async () => {
    let calls = 0;
    const value = await until(() => (++calls >= 3 ? `ready after ${calls}` : undefined), {
      message: 'the third call',
      intervalMs: 1,
    });
    expect(value).toBe('ready after 3');
    expect(calls).toBe(3);
  });

  it('takes a custom accept and async conditions', async () => {
    let n = 0;
    const value = await until(async () => (n += 1), {
      message: 'n to reach 4',
      accept: (v) => v >= 4,
      intervalMs: 1,
    });
    expect(value).toBe(4);
  });

  it('treats 0 and the empty string as values, and false, null and undefined as not yet', async () => {
    expect(await until(() => 0, { message: 'zero' })).toBe(0);
    expect(await until(() => '', { message: 'empty' })).toBe('');
    await expect(until(() => false, { message: 'never', timeoutMs: 20 })).rejects.toThrow(
      UntilTimeoutError,
    );
    await expect(until(() => null, { message: 'never', timeoutMs: 20 })).rejects.toThrow(
      UntilTimeoutError,
    );
  });

  it('throws after the timeout, naming what it waited for and the last value', async () => {
    const started = Date.now();
    await expect(
      until(() => ({ count: 2 }), {
        message: 'three rows',
        accept: (v) => v.count === 3,
        timeoutMs: 100,
        intervalMs: 10,
      }),
    ).rejects.toThrow('timed out after 100 ms waiting for three rows; last value: {"count":2}');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it("ends the wait with the condition's own error", async () => {
    await expect(
      until(
        () => {
          throw new Error('probe broke');
        },
        { message: 'anything' },
      ),
    ).rejects.toThrow('probe broke');
  });
});
