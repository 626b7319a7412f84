/**
 * The client's own transport (node:http/https, keep-alive agent): what a caller notices of the
 * connection, timeouts and broken answers, and that an injected fetch still carries every call.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  InternalServiceError,
  NetworkError,
  TimeoutError,
  UnexpectedStatusError,
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
} from '../../src/upstream/index.ts';
import { startRecordingServer, type RecordingServer } from './support/recording-server.ts';

const API_KEY = 'sk_test_do_not_leak_0123456789';

// A self-signed certificate for 127.0.0.1 and localhost, valid until 2126 (openssl req -x509, P-256).
const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgITni+ujeRE17ZMoN
xXb6rq3Put8E8guXvabZWKq5SEShRANCAASs8WrcCuxYPLw+di4hTMdLXPRmRoFe
DPvBjfpxfNxpF1N0GAmGDbW0xEI/ZBapkcBsbErgesjkPwsPx5aMzibQ
-----END PRIVATE KEY-----
`;
const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBmjCCAUGgAwIBAgIUPUrjumreFeR/OSigZkqTC/QTD0EwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNzAwNTUyNloYDzIxMjYxMTAz
MDA1NTI2WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASs8WrcCuxYPLw+di4hTMdLXPRmRoFeDPvBjfpxfNxpF1N0GAmGDbW0
xEI/ZBapkcBsbErgesjkPwsPx5aMzibQo28wbTAdBgNVHQ4EFgQUCdErbt51Hfle
vQM4bGIDfmxnI2gwHwYDVR0jBBgwFoAUCdErbt51HflevQM4bGIDfmxnI2gwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDRwAwRAIgVV2QaC9KOZGFuFuOJW494RycVmSneDVLUAQeshunj8MCIAC0
KiJAMxsECCQa4R4p3JpmIVRExtt/FaaJXjh9R8pv
-----END CERTIFICATE-----
`;

const clients: UpstreamClient[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

function client(baseUrl: string, overrides: Partial<UpstreamClientOptions> = {}) {
  const created = createUpstreamClient({
    baseUrl,
    apiKey: API_KEY,
    merchantId: 'mch_42',
    environment: 'sandbox',
    rps: 1000,
    retryInitialDelayMs: 1,
    retryMaxDelayMs: 5,
    now: () => new Date(),
    ...overrides,
  });
  clients.push(created);
  return created;
}

/** A bare server for answers the recording server cannot give (stalls, cuts, gzip, TLS). */
async function listen(server: Server, scheme = 'http'): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function rawServer(handler: RequestListener): Promise<string> {
  return listen(createServer(handler));
}

describe('connections', () => {
  let recording: RecordingServer;
  beforeAll(async () => {
    recording = await startRecordingServer();
  });
  afterAll(async () => {
    await recording.stop();
  });
  beforeEach(() => {
    recording.requests.length = 0;
  });

  it('sends calls one after another on one kept-alive connection', async () => {
    recording.reply(() => ({ status: 200, body: [] }));
    const upstream = client(recording.url);
    for (let i = 0; i < 20; i += 1) await upstream.listWebhooks();
    expect(recording.requests).toHaveLength(20);
    expect(new Set(recording.requests.map((r) => r.remotePort)).size).toBe(1);
    expect(recording.requests[0]?.headers).toMatchObject({
      accept: 'application/json',
      'user-agent': 'paysync',
      apikey: API_KEY,
    });
  });

  it('opens no more connections than `concurrency`, however many calls wait', async () => {
    recording.reply(() => ({ status: 200, body: [], delayMs: 20 }));
    const upstream = client(recording.url, { concurrency: 3 });
    await Promise.all(Array.from({ length: 30 }, () => upstream.listWebhooks()));
    expect(recording.requests).toHaveLength(30);
    const ports = new Set(recording.requests.map((r) => r.remotePort));
    expect(ports.size).toBeGreaterThan(1);
    expect(ports.size).toBeLessThanOrEqual(3);
  });

  it('a connection the server closed while idle costs no error and no retry', async () => {
    const server = createServer((req, res) => {
      res.on('finish', () => setTimeout(() => req.socket.end(), 30));
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    server.keepAliveTimeout = 0; // no Keep-Alive hint: the client cannot know the server will close
    const closed = new Promise((resolve) => server.on('connection', (s) => s.on('close', resolve)));
    const upstream = client(await listen(server));
    await upstream.listWebhooks();
    // The server's socket closes once the client has answered the FIN with its own; two chained
    // timers then let the client's event loop pass a poll phase and drop the socket from its pool.
    await closed;
    for (let i = 0; i < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(upstream.listWebhooks()).resolves.toEqual([]);
    expect(upstream.stats()).toMatchObject({ requests: 2, retries: 0 });
  });

  it('close() drops pooled connections, and a later call opens a new one', async () => {
    recording.reply(() => ({ status: 200, body: [] }));
    const upstream = client(recording.url);
    await upstream.listWebhooks();
    upstream.close();
    await upstream.listWebhooks();
    const [first, second] = recording.requests;
    expect(second?.remotePort).not.toBe(first?.remotePort);
  });
});

describe('timeouts and cancellation', () => {
  it('an answer whose body stalls after the headers times out as a retryable TimeoutError', async () => {
    const url = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('[{"id":');
    });
    const started = performance.now();
    const error = await client(url, { timeoutMs: 150, maxRetries: 0 })
      .listWebhooks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ retryable: true, timeoutMs: 150 });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("the caller's abort ends the call with the caller's reason, not a retry", async () => {
    let requests = 0;
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const url = await rawServer((_req, res) => {
      requests += 1;
      controller.abort(reason); // while the service is still working on it
      setTimeout(() => res.writeHead(200).end('[]'), 1_000);
    });
    const error = await client(url)
      .listWebhooks({ signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBe(reason);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toBe(1);
  });
});

describe('broken answers', () => {
  it('a connection cut mid-answer is a retryable NetworkError, so a read is retried', async () => {
    let requests = 0;
    const url = await rawServer((_req, res) => {
      requests += 1;
      if (requests === 1) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('[{"id":');
        setTimeout(() => res.socket?.destroy(), 10);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    const upstream = client(url);
    await expect(upstream.listWebhooks()).resolves.toEqual([]);
    expect(upstream.stats()).toMatchObject({ requests: 2, retriesByReason: { network: 1 } });
  });

  it('a refused connection is a NetworkError naming ECONNREFUSED, retried for reads, never showing the key', async () => {
    const upstream = client('http://127.0.0.1:1', { maxRetries: 2 });
    const error = await upstream.listWebhooks().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toContain('ECONNREFUSED');
    expect((error as NetworkError).message).not.toContain(API_KEY);
    expect(upstream.stats()).toMatchObject({ requests: 3, retriesByReason: { network: 2 } });
  });

  it('a 502 with an HTML body is an InternalServiceError keeping the text', async () => {
    const url = await rawServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
    });
    const error = await client(url, { maxRetries: 0 })
      .listWebhooks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServiceError);
    expect(error).toMatchObject({
      status: 502,
      body: '<html>bad gateway</html>',
      bodyMatchesContract: false,
    });
  });

  it('reads a gzip-encoded body and a UTF-8 byte-order mark like fetch did', async () => {
    const url = await rawServer((req, res) => {
      const webhook = { id: 'wh_1', url: 'https://example.com/ünïcode' };
      if (req.url === '/webhooks')
        res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(gzipSync(JSON.stringify([webhook])));
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(`\uFEFF${JSON.stringify(webhook)}`);
    });
    const upstream = client(url);
    await expect(upstream.listWebhooks()).resolves.toEqual([
      { id: 'wh_1', url: 'https://example.com/ünïcode' },
    ]);
    await expect(upstream.getWebhook('wh_1')).resolves.toMatchObject({
      url: 'https://example.com/ünïcode',
    });
  });

  it('does not follow a redirect, so the credentials never reach another address', async () => {
    const elsewhere = await startRecordingServer();
    try {
      const url = await rawServer((_req, res) => {
        res.writeHead(302, { location: `${elsewhere.url}/webhooks` }).end();
      });
      const error = await client(url)
        .listWebhooks()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedStatusError);
      expect(error).toMatchObject({ status: 302, retryable: false });
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.stop();
    }
  });
});

describe('https', () => {
  async function tlsServer(): Promise<{ url: string; ports: (number | undefined)[] }> {
    const ports: (number | undefined)[] = [];
    const server = createTlsServer({ key: TLS_KEY, cert: TLS_CERT }, (req, res) => {
      ports.push(req.socket.remotePort);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify([{ id: 'wh_1', apiKeySeen: req.headers.apikey === API_KEY }]));
    });
    return { url: await listen(server, 'https'), ports };
  }

  it('speaks TLS to an https base URL, with the headers, on one kept-alive connection', async () => {
    const { url, ports } = await tlsServer();
    const upstream = client(url, { ca: TLS_CERT });
    for (let i = 0; i < 5; i += 1)
      await expect(upstream.listWebhooks()).resolves.toEqual([{ id: 'wh_1', apiKeySeen: true }]);
    expect(ports).toHaveLength(5);
    expect(new Set(ports).size).toBe(1);
  });

  it('refuses a certificate nobody vouches for, naming why, and sends nothing', async () => {
    const { url, ports } = await tlsServer();
    const error = await client(url, { maxRetries: 0 })
      .listWebhooks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toContain('SELF_SIGNED');
    expect(ports).toHaveLength(0);
  });
});

describe('an injected fetch', () => {
  it('carries every attempt, with the same timeouts and error classes', async () => {
    let calls = 0;
    const recording = await startRecordingServer();
    try {
      const upstream = client(recording.url, {
        maxRetries: 0,
        timeoutMs: 1_000,
        fetch: (input, init) => {
          calls += 1;
          return globalThis.fetch(input, init);
        },
      });
      recording.reply(() => ({ status: 200, body: [] }));
      await expect(upstream.listWebhooks()).resolves.toEqual([]);
      recording.reply(() => ({ status: 200, body: [], delayMs: 3_000 }));
      await expect(upstream.listWebhooks()).rejects.toBeInstanceOf(TimeoutError);
      expect(calls).toBe(2);
      expect(recording.requests[0]?.headers.apikey).toBe(API_KEY);
    } finally {
      await recording.stop();
    }
  });
});
