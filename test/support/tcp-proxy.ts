import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP forwarder on a port of its own to a real server (PostgreSQL): `stop()` cuts every
 * connection through it and refuses new ones, as a database host that went down does; `start()`
 * listens again on the same port.
 */
export interface TcpProxy {
  readonly port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    const created = createServer((client) => {
      const upstream = createConnection(target);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      created.once('error', reject);
      created.listen(port, '127.0.0.1', () => resolve());
    });
    port = (created.address() as AddressInfo).port;
    server = created;
  };
  await listen();
  return {
    get port() {
      return port;
    },
    start: listen,
    async stop() {
      const closing = server;
      server = undefined;
      if (!closing) return;
      const closed = new Promise<void>((resolve) => closing.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
