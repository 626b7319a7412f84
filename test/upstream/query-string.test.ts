import { describe, expect, it } from 'vitest';
import { serializeQuery, withListDefaults } from '../../src/upstream/index.ts';

describe('serializeQuery', () => {
  it('repeats array parameters, writes booleans as true/false and dates as UTC with ms', () => {
    const { search, issues } = serializeQuery({
      accountType: ['collection', 'transfer-irt'],
      isDelegated: false,
      date: new Date(Date.UTC(2024, 4, 1, 12, 30)),
      to: '2024-05-02T01:00:00+02:00',
      names: ['wave'],
      page: 2,
      skipped: undefined,
    });
    expect(issues).toEqual([]);
    expect(search.getAll('accountType')).toEqual(['collection', 'transfer-irt']);
    expect(search.get('isDelegated')).toBe('false');
    expect(search.get('date')).toBe('2024-05-01T12:30:00.000Z');
    expect(search.get('to')).toBe('2024-05-01T23:00:00.000Z');
    expect(search.getAll('names')).toEqual(['wave']);
    expect(search.get('page')).toBe('2');
    expect(search.has('skipped')).toBe(false);
  });

  it('reports an unreadable date instead of sending it', () => {
    const { issues } = serializeQuery({ from: 'last tuesday' });
    expect(issues).toEqual([{ path: 'from', message: 'must be a date or ISO 8601 datetime' }]);
  });
});

describe('withListDefaults', () => {
  it('applies the documented defaults of from, to, page and perPage explicitly', () => {
    const now = new Date('2024-05-17T08:09:10.123Z');
    expect(withListDefaults({}, now)).toEqual({
      from: new Date('2024-05-01T00:00:00.000Z'),
      to: now,
      page: 1,
      perPage: 10,
    });
    expect(withListDefaults({ page: 3, perPage: 50 }, now)).toMatchObject({ page: 3, perPage: 50 });
  });
});
