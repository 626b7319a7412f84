import { describe, expect, it } from 'vitest';
import { parseTime } from '../../src/cli/input/parse-time.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

const NOW = new Date('2030-06-15T12:00:00.000Z');

describe('7.D13: one strict parser for every time flag', () => {
  it.each([
    ['2030-01-10', '2030-01-10T00:00:00.000Z'],
    ['2028-02-29', '2028-02-29T00:00:00.000Z'],
    ['2030-01-10T10:00:00Z', '2030-01-10T10:00:00.000Z'],
    ['2030-01-10 10:00', '2030-01-10T10:00:00.000Z'],
    ['2030-01-10T10:00:00.1234Z', '2030-01-10T10:00:00.123Z'],
    ['2030-01-10T10:00:00+02:00', '2030-01-10T08:00:00.000Z'],
    ['2030-01-10T10:00:00-0130', '2030-01-10T11:30:00.000Z'],
    ['2030-12-31T23:59:59Z', '2030-12-31T23:59:59.000Z'],
    ['6h', '2030-06-15T06:00:00.000Z'],
    ['7d', '2030-06-08T12:00:00.000Z'],
  ])('reads %s as %s', (value, expected) => {
    expect(parseTime(value, '--since', NOW).toISOString()).toBe(expected);
  });

  it.each([
    ['2030-02-30', /February 2030 has 28 days/],
    ['2029-02-29', /February 2029 has 28 days/],
    ['2030-04-31', /April 2030 has 30 days/],
    ['2030-13-01', /no month 13/],
    ['2030-00-10', /no month 0/],
    ['2030-01-00', /January 2030 has 31 days/],
    ['2030-01-10T24:00:00Z', /hour 24/],
    ['2030-01-10T23:60:00Z', /minute 60/],
    ['2030-01-10T23:59:60Z', /second 60/],
    ['2030-01-10T10:00:00+25:00', /offset \+25:00/],
    ['99999999999999d', /too far back/],
    ['yesterday', /use a UTC ISO 8601 time/],
    ['2030-1-10', /use a UTC ISO 8601 time/],
  ])('refuses %s', (value, reason) => {
    expect(() => parseTime(value, '--from', NOW)).toThrow(reason);
    expect(() => parseTime(value, '--from', NOW)).toThrow(/^--from "/);
  });

  // The first case runs as a real process, the others in this process (issue 39).
  it.each([
    ['list', 'transfers', '--since', '2030-02-30'],
    ['replay', '--since', '2030-02-30'],
    ['backfill', '--from', '2030-02-30', '--to', '2030-03-01'],
    ['backfill', '--from', '2030-02-01', '--to', '2030-02-30'],
    ['export', '--from', '2030-02-30', '--to', '2030-03-01'],
    ['export', '--from', '2030-02-01', '--to', '2030-02-30'],
  ])('`paysync %s …` refuses 2030-02-30 with exit 2, naming the flag', async (...args) => {
    const flag = args[args.indexOf('2030-02-30') - 1]!;
    // A database that cannot exist: the flag must be refused before anything is opened.
    const run = args[0] === 'list' ? runCli : runCliInProcess;
    const result = await run(args, {
      env: { PAYSYNC_DATABASE_URL: 'sqlite:/dev/null/never/x.db' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${flag} "2030-02-30" is not a time: February 2030 has 28 days; use`,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });
});
