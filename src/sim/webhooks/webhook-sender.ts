import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** Where one webhook URL's requests go: parsed once, reused for every try. */
interface Target {
  readonly secure: boolean;
  readonly options: RequestOptions;
}

/** A try that got no answer in time. */
export class WebhookTimeoutError extends Error {
  override readonly name = 'WebhookTimeoutError';
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * A pooled connection the receiver had closed while it sat idle: the request failed before
 * any answer, on a reused socket (the race node:http documents under `request.reusedSocket`).
 */
function isStaleSocket(request: ClientRequest, answered: boolean, error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return !answered && request.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
}

/**
 * POSTs webhook bodies over a pool of keep-alive connections (node:http, or node:https for an
 * https URL), at most `maxSockets` per receiver. Each try is one request: the caller owns
 * pacing and retries. global fetch() (undici) built a Request, a Response, web streams and
 * abort signals for every delivery, and was most of the simulator's CPU per webhook.
 */
export class WebhookSender {
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;
  private readonly inFlight = new Set<ClientRequest>();
  private readonly targets = new Map<string, Target>();

  constructor(maxSockets: number) {
    const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets };
    this.httpAgent = new HttpAgent(options);
    this.httpsAgent = new HttpsAgent(options);
  }

  /**
   * Sends `body` and resolves with the answer's status once the answer is read to its end, so
   * the connection goes back to the pool. Rejects on a network error, or with
   * {@link WebhookTimeoutError} after `timeoutMs`. A request that failed only because its
   * pooled connection had been closed by the receiver is sent once more on a new connection.
   */
  async post(
    url: string,
    /** Sent as given; the caller sets `content-length`. */
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
  ): Promise<number> {
    const target = this.target(url);
    const deadline = Date.now() + timeoutMs;
    try {
      return await this.once(target, headers, body, timeoutMs);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
    }
    try {
      return await this.once(target, headers, body, Math.max(1, deadline - Date.now()));
    } catch (error) {
      throw error instanceof StaleSocketError ? error.original : error;
    }
  }

  /** Aborts every try in flight and closes the pooled connections. */
  destroy(): void {
    for (const request of this.inFlight) request.destroy(new Error('simulator stopping'));
    this.inFlight.clear();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private target(url: string): Target {
    let target = this.targets.get(url);
    if (target === undefined) {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        throw new Error(`webhook URL must be http or https, not ${parsed.protocol}`);
      }
      const secure = parsed.protocol === 'https:';
      target = {
        secure,
        options: {
          protocol: parsed.protocol,
          // [::1] → ::1, as node:http wants a bare address
          hostname: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: parsed.port === '' ? (secure ? 443 : 80) : Number(parsed.port),
          path: `${parsed.pathname}${parsed.search}`,
          method: 'POST',
          agent: secure ? this.httpsAgent : this.httpAgent,
          ...(parsed.username === ''
            ? {}
            : {
                auth: `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`,
              }),
        },
      };
      if (this.targets.size > 1_000) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  private once(
    target: Target,
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
  ): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const request = (target.secure ? httpsRequest : httpRequest)({ ...target.options, headers });
      let settled = false;
      let answered = false;
      const finish = (error: unknown, status?: number) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(request);
        if (error === undefined) resolve(status ?? 0);
        else reject(isStaleSocket(request, answered, error) ? new StaleSocketError(error) : error);
      };
      const timer = setTimeout(
        () => request.destroy(new WebhookTimeoutError(timeoutMs)),
        timeoutMs,
      );
      this.inFlight.add(request);
      request.on('response', (response) => {
        answered = true;
        response.on('error', (error) => finish(error));
        response.on('end', () => finish(undefined, response.statusCode));
        response.resume();
      });
      request.on('error', (error) => finish(error));
      // Closed with neither an answer read to its end nor an error (a cut mid-answer): never
      // leave the try hanging, or the dispatcher would wait for it forever.
      request.on('close', () => finish(new Error('connection closed before the answer ended')));
      request.end(body);
    });
  }
}

class StaleSocketError extends Error {
  constructor(readonly original: unknown) {
    super('pooled connection closed by the receiver');
  }
}
