import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';

describe('PAYSYNC_EXPECTATIONS_ALL_EXPECTED', () => {
  test.each([
    [undefined, 'off'],
    ['', 'off'],
    ['in', 'in'],
    ['OUT', 'out'],
    [' both ', 'both'],
  ])('%j is %s', (value, allExpected) => {
    expect(loadConfig({ PAYSYNC_EXPECTATIONS_ALL_EXPECTED: value }).expectations).toEqual({
      allExpected,
    });
  });

  test('a bad value stops the start with the variable and what it may be', () => {
    expect(() => loadConfig({ PAYSYNC_EXPECTATIONS_ALL_EXPECTED: 'sideways' })).toThrow(
      new ConfigError(
        'PAYSYNC_EXPECTATIONS_ALL_EXPECTED',
        'PAYSYNC_EXPECTATIONS_ALL_EXPECTED="sideways" is invalid: must be off, in, out or both',
      ),
    );
  });
});
