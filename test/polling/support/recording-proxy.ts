import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  readonly method: string;
  readonly url: URL;
  /** Items in a JSON array answer (list calls), else 0. */
  readonly items: number;
  readonly ids: readonly string[];
}

/** A pass-through HTTP proxy to `target` that records every request and what it returned. */
export interface RecordingProxy {
  readonly url: string;
  readonly requests: ProxiedRequest[];
  stop(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: ProxiedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (name !== 'host' && name !== 'connection' && typeof value === 'string')
          headers[name] = value;
      }
      const method = req.method ?? 'GET';
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${req.url ?? '/'}`, { method, headers, ...(body ? { body } : {}) })
        .then(async (answer) => {
          const text = await answer.text();
          let ids: string[] = [];
          try {
            const parsed: unknown = JSON.parse(text);
            if (Array.isArray(parsed)) ids = parsed.map((item) => String(item?.id));
          } catch {
            // not JSON: nothing to count
          }
          requests.push({
            method,
            url: new URL(req.url ?? '/', 'http://proxy'),
            items: ids.length,
            ids,
          });
          const out: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection')
              out[name] = value;
          });
          res.writeHead(answer.status, out).end(text);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
