import { connect } from 'node:net';

/** What came back on one raw HTTP connection. */
export interface RawAnswer {
  /** The status code, or undefined when the server closed without a status line. */
  readonly status: number | undefined;
  /** Every byte the server sent: status line, headers and body. */
  readonly raw: Buffer;
  /** The body (after the blank line), de-chunked when the answer was chunked. */
  readonly body: Buffer;
  /** A socket error seen while talking (e.g. ECONNRESET after an early answer), if any. */
  readonly socketError: string | undefined;
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseAnswer(raw: Buffer, socketError: string | undefined): RawAnswer {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw.subarray(0, 16).toString('latin1'));
  const headEnd = raw.indexOf('\r\n\r\n');
  const head = headEnd < 0 ? '' : raw.subarray(0, headEnd).toString('latin1');
  let body = headEnd < 0 ? Buffer.alloc(0) : raw.subarray(headEnd + 4);
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) body = dechunk(body);
  return { status: match ? Number(match[1]) : undefined, raw, body, socketError };
}

/**
 * Writes `request` byte for byte on a fresh TCP connection and reads until the server closes
 * it (requests carry `Connection: close`). No HTTP client in between: methods, header names
 * and values, framing and body may be anything, as a hostile sender's would.
 *
 * The write side stays open, as a real client's does (Node's server drops a connection whose
 * client half-closed before the answer was ready). Only if nothing came back after
 * `quietMs`, for a request whose framing promised more bytes, is the end signalled.
 */
export function rawRequest(
  port: number,
  request: Buffer,
  { timeoutMs = 10_000, quietMs = 3_000 } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    let socketError: string | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // The server may answer (413, 431, 400) and close before reading all we send.
    socket.on(
      'error',
      (error: NodeJS.ErrnoException) => (socketError = error.code ?? error.message),
    );
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(received), socketError));
    });
    const nudge = setTimeout(() => {
      if (received.length === 0) socket.end();
    }, quietMs);
    socket.on('close', () => clearTimeout(nudge));
    socket.on('connect', () => socket.write(request));
  });
}
