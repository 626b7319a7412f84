/**
 * Cursors of the list routes. The readers below them page by limit, so a cursor is the
 * offset of the next row, encoded so clients treat it as opaque (the encoding may change to
 * keyset without breaking them).
 */
/**
 * The furthest row a cursor may start at. The readers read `offset + limit + 1` rows, so an
 * offset is a cost: past this a list must be narrowed with its filters (`since`, `state`…).
 */
export const MAX_CURSOR_OFFSET = 10_000;

export function encodeCursor(offset: number): string {
  return Buffer.from(`o${offset}`, 'utf8').toString('base64url');
}

/** The offset in a cursor; undefined when it is not one of ours. */
export function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return 0;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^o(\d{1,9})$/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** One page out of `rows` read from offset 0 with `offset + limit + 1` as the limit. */
export function pageOf<T>(
  rows: readonly T[],
  offset: number,
  limit: number,
): { data: T[]; nextCursor: string | null } {
  const data = rows.slice(offset, offset + limit);
  const more = rows.length > offset + limit;
  return { data, nextCursor: more ? encodeCursor(offset + limit) : null };
}
