import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import * as tls from 'node:tls';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import type { FetchLike } from './client-options.ts';

/** One HTTP attempt, as the client hands it to a transport. */
export interface TransportRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The whole attempt (connect, send, read the body) must finish within this. */
  timeoutMs: number;
  /** The caller's cancellation; a transport rejects with its reason when it fires. */
  signal: AbortSignal | undefined;
}

/** What the client reads of an answer: the rest of the response is not used. */
export interface TransportResponse {
  status: number;
  retryAfter: string | null;
  /** The body decoded as UTF-8 (a leading byte-order mark dropped, as `Response.text()` does). */
  text: string;
}

/** Sends one attempt. Rejects with {@link AttemptTimedOut}, the caller's abort reason, or a network error. */
export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Closes pooled connections; calls after it still work (they open new ones). */
  close(): void;
}

/** A transport gave up because the attempt outlasted its `timeoutMs`; the client makes it a `TimeoutError`. */
export class AttemptTimedOut extends Error {
  override readonly name = 'AttemptTimedOut';
  constructor(readonly timeoutMs: number) {
    super(`no response within ${timeoutMs} ms`);
  }
}

export interface HttpTransportOptions {
  /** Sockets per origin: the client's `concurrency`, so a request in flight never waits for a socket. */
  maxSockets: number;
  /**
   * How long an idle pooled socket is kept. A server's `Keep-Alive: timeout=N` hint shortens it
   * (to N−1 s), so we do not send on a socket the server is about to close.
   */
  idleSocketTimeoutMs: number;
  /** Extra certificate authorities (PEM) trusted for https, on top of `tls.rootCertificates`. */
  ca?: string | undefined;
}

/**
 * The default transport: `node:http`/`node:https` with a keep-alive agent per client. It costs
 * far less CPU per request than global fetch (undici's web streams) for the small JSON answers
 * of the service. It sends no `Accept-Encoding` (identity), but still decodes a gzip, deflate or
 * br body if a server compresses anyway. Redirects are not followed: a 3xx is the answer (the
 * client reports it as an unexpected status), so credentials never travel to another address.
 * TLS certificates are verified by Node's defaults (add a private CA with `NODE_EXTRA_CA_CERTS`).
 */
export function createHttpTransport(options: HttpTransportOptions): Transport {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets,
    maxFreeSockets: options.maxSockets,
    timeout: options.idleSocketTimeoutMs,
    scheduling: 'lifo' as const,
  };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent({
    ...agentOptions,
    ...(options.ca !== undefined ? { ca: [...tls.rootCertificates, options.ca] } : {}),
  });
  return {
    send(request) {
      return new Promise<TransportResponse>((resolve, reject) => {
        const { signal } = request;
        if (signal?.aborted) {
          reject(abortReason(signal));
          return;
        }
        const https = request.url.startsWith('https:');
        const headers: Record<string, string | number> = { ...request.headers };
        if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
        const req = (https ? httpsRequest : httpRequest)(request.url, {
          method: request.method,
          headers,
          agent: https ? httpsAgent : httpAgent,
        });
        let settled = false;
        const finish = (error: unknown, response?: TransportResponse) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          if (error === undefined) resolve(response!);
          else {
            req.destroy();
            reject(error);
          }
        };
        const timer = setTimeout(
          () => finish(new AttemptTimedOut(request.timeoutMs)),
          request.timeoutMs,
        );
        const onAbort = () => finish(abortReason(signal!));
        signal?.addEventListener('abort', onAbort, { once: true });
        req.on('error', (error) => finish(error));
        req.on('response', (res) => {
          readBody(res).then(
            (text) =>
              finish(undefined, {
                status: res.statusCode ?? 0,
                retryAfter: headerValue(res.headers['retry-after']),
                text,
              }),
            (error: unknown) => finish(error),
          );
        });
        req.end(request.body);
      });
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

/**
 * The transport of an injected fetch (tests, a custom dispatcher): the behaviour of the client
 * before it had its own transport, kept so that seam keeps working.
 */
export function createFetchTransport(fetch: FetchLike): Transport {
  return {
    async send(request) {
      const timeout = AbortSignal.timeout(request.timeoutMs);
      const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
      try {
        const response = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          signal,
          ...(request.body !== undefined ? { body: request.body } : {}),
        });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          text: await response.text(),
        };
      } catch (error) {
        if (request.signal?.aborted) throw abortReason(request.signal);
        if (timeout.aborted) throw new AttemptTimedOut(request.timeoutMs);
        throw error;
      }
    },
    close() {},
  };
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

const decoders: Record<
  string,
  (input: Buffer, done: (error: Error | null, output: Buffer) => void) => void
> = {
  gzip: gunzip,
  'x-gzip': gunzip,
  deflate: inflate,
  br: brotliDecompress,
};

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      const encoding = res.headers['content-encoding']?.trim().toLowerCase();
      const decode = encoding && encoding !== 'identity' ? decoders[encoding] : undefined;
      if (encoding && encoding !== 'identity' && !decode) {
        reject(
          Object.assign(new Error(`unsupported content-encoding ${encoding}`), {
            code: 'UNSUPPORTED_ENCODING',
          }),
        );
        return;
      }
      if (!decode) {
        resolve(utf8(raw));
        return;
      }
      decode(raw, (error, output) => (error ? reject(error) : resolve(utf8(output))));
    });
    res.on('close', () => {
      if (!res.complete)
        reject(
          Object.assign(new Error('the connection closed mid-answer'), { code: 'ECONNRESET' }),
        );
    });
  });
}

function utf8(buffer: Buffer): string {
  const text = buffer.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
