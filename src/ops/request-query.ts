import type { Request } from 'express';
import type { z } from 'zod';
import { BadParameterError, parseParameters, refuseUnknownQuery } from './ops-errors.ts';
import { decodeCursor, MAX_CURSOR_OFFSET } from './page-cursor.ts';

/** A route's query string, checked against its schema: an unknown parameter is refused by name. */
export function query<T extends z.ZodObject>(schema: T, request: Request): z.output<T> {
  const raw = request.query as Record<string, unknown>;
  refuseUnknownQuery(raw, Object.keys(schema.shape));
  return parseParameters(schema, raw, 'query');
}

/**
 * Where a page starts: 0 without a cursor, else the offset a `nextCursor` carries, at most
 * MAX_CURSOR_OFFSET (a forged cursor could otherwise ask for any offset, and so a whole-table
 * read).
 */
export function offsetOf(cursor: string | undefined): number {
  const offset = decodeCursor(cursor);
  if (offset === undefined)
    throw new BadParameterError('cursor', 'must be a nextCursor of an earlier answer');
  if (offset > MAX_CURSOR_OFFSET) {
    throw new BadParameterError(
      'cursor',
      `pages stop at row ${MAX_CURSOR_OFFSET.toLocaleString('en-US')}: narrow the list with its filters (such as since)`,
    );
  }
  return offset;
}
