import { describe, expect, test } from 'vitest';
import { ConfigError, EXPECTATION_BREAK_KINDS, loadConfig } from '../../src/config/index.ts';
import { BREAK_KINDS } from '../../src/expectations/index.ts';

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
      breakVerdict: ['missing'],
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

describe('PAYSYNC_EXPECTATIONS_BREAK_VERDICT', () => {
  test.each([
    [undefined, ['missing']],
    ['', ['missing']],
    ['none', []],
    [' NONE ', []],
    ['missing,amount_mismatch', ['missing', 'amount_mismatch']],
    ['late, late ,duplicate', ['late', 'duplicate']],
  ])('%j is %j', (value, breakVerdict) => {
    expect(
      loadConfig({ PAYSYNC_EXPECTATIONS_BREAK_VERDICT: value }).expectations.breakVerdict,
    ).toEqual(breakVerdict);
  });

  test('an unknown kind stops the start with the variable, the kinds and the bad one', () => {
    expect(() => loadConfig({ PAYSYNC_EXPECTATIONS_BREAK_VERDICT: 'missing,lost' })).toThrow(
      /PAYSYNC_EXPECTATIONS_BREAK_VERDICT="missing,lost" is invalid: must be none or a comma-separated list of missing, amount_mismatch, .* \(not lost\)/,
    );
  });

  test('the settings know the same break kinds as the expectations', () => {
    expect([...EXPECTATION_BREAK_KINDS]).toEqual([...BREAK_KINDS]);
  });
});
