import type { ServerResponse } from 'node:http';

/**
 * Writes `body` as JSON with the headers Express's `res.json` sets (`application/json;
 * charset=utf-8` and the length), straight onto node's response: the API answers every
 * request this way, and Express's generic `send` (content-type lookup, ETag check, encoding)
 * was a measurable share of the simulator's CPU per request.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body) ?? '';
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}
