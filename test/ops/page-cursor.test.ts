import { describe, expect, it } from 'vitest';
import { BadParameterError } from '../../src/ops/ops-errors.ts';
import { encodeCursor, MAX_CURSOR_OFFSET, pageOf } from '../../src/ops/page-cursor.ts';
import { offsetOf } from '../../src/ops/request-query.ts';

describe('list cursors (issue 38.9)', () => {
  it('start a page at any offset up to 10,000', () => {
    expect(MAX_CURSOR_OFFSET).toBe(10_000);
    expect(offsetOf(undefined)).toBe(0);
    expect(offsetOf(encodeCursor(40))).toBe(40);
    expect(offsetOf(encodeCursor(10_000))).toBe(10_000);
    const rows = Array.from({ length: 10_003 }, (_, i) => i);
    expect(pageOf(rows, 10_000, 2)).toEqual({
      data: [10_000, 10_001],
      nextCursor: encodeCursor(10_002),
    });
  });

  it.each([10_001, 999_999_999])(
    'refuse a cursor past row 10,000 (%i) with a 400 naming cursor, instead of reading the whole table',
    (offset) => {
      let thrown: unknown;
      try {
        offsetOf(encodeCursor(offset));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(BadParameterError);
      expect((thrown as BadParameterError).message).toBe(
        'cursor: pages stop at row 10,000: narrow the list with its filters (such as since)',
      );
    },
  );

  it('refuse a cursor they did not make', () => {
    expect(() => offsetOf('bm9wZQ')).toThrow('cursor: must be a nextCursor of an earlier answer');
  });
});
