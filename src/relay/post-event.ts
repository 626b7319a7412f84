import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

/** How one POST to an endpoint ended (a row of the delivery log). */
export type AttemptOutcome = 'delivered' | 'failed' | 'timeout' | 'error' | 'gone';

export interface PostResult {
  readonly outcome: AttemptOutcome;
  /** The answer's status; undefined when there was none (timeout, refused, reset). */
  readonly statusCode?: number;
  readonly durationMs: number;
  /** At most {@link RESPONSE_EXCERPT_BYTES} of the answer's body, as text. */
  readonly excerpt?: string;
  /** Why there was no answer (`ECONNREFUSED`, `timed out after 15000 ms`). */
  readonly error?: string;
}

/** The most of an answer's body the delivery log keeps. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface PostOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The whole exchange, connection to the end of the answer. */
  readonly timeoutMs: number;
  /**
   * The SSRF guard (endpoint-url.ts): why the URL's host may not be delivered to (checked
   * before connecting, for address literals), and the `lookup` that refuses an internal
   * address when the name is resolved. Undefined: no guard.
   */
  readonly guard?: {
    readonly hostProblem: (hostname: string) => string | undefined;
    readonly lookup: LookupFunction;
  };
}

/**
 * POSTs one signed event and reads at most {@link RESPONSE_EXCERPT_BYTES} of the answer.
 * Never throws: every way it can end is a {@link PostResult}. 2xx is `delivered`, 410 is
 * `gone` (the endpoint asks to be disabled), any other status is `failed`. Redirects are not
 * followed (a redirect is an answer that is not 2xx).
 */
export function postEvent(options: PostOptions): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      finish({ outcome: 'error', durationMs: 0, error: 'the endpoint URL does not parse' });
      return;
    }
    const timer = setTimeout(() => {
      request?.destroy();
      finish({
        outcome: 'timeout',
        durationMs: elapsed(),
        error: `timed out after ${options.timeoutMs} ms`,
      });
    }, options.timeoutMs);
    let request: ReturnType<typeof httpRequest> | undefined;
    const send = () => {
      const body = Buffer.from(options.body);
      const make = url.protocol === 'https:' ? httpsRequest : httpRequest;
      request = make(
        url,
        {
          method: 'POST',
          headers: {
            ...options.headers,
            'content-length': String(body.length),
            'user-agent': 'paysync-relay',
          },
          agent: false,
          ...(options.guard ? { lookup: options.guard.lookup } : {}),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          response.on('data', (chunk: Buffer) => {
            if (kept < RESPONSE_EXCERPT_BYTES) {
              const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
              chunks.push(part);
              kept += part.length;
            }
          });
          const done = () => {
            const statusCode = response.statusCode ?? 0;
            const outcome: AttemptOutcome =
              statusCode >= 200 && statusCode < 300
                ? 'delivered'
                : statusCode === 410
                  ? 'gone'
                  : 'failed';
            finish({
              outcome,
              statusCode,
              durationMs: elapsed(),
              excerpt: Buffer.concat(chunks).toString('utf8'),
            });
          };
          response.on('end', done);
          response.on('aborted', done);
          response.on('error', done);
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        finish({ outcome: 'error', durationMs: elapsed(), error: error.code ?? error.message });
      });
      request.end(body);
    };
    const refused = options.guard?.hostProblem(url.hostname);
    if (refused !== undefined) {
      finish({ outcome: 'error', durationMs: elapsed(), error: `the host ${refused}` });
      return;
    }
    send();
  });
}
