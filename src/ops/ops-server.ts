import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import type { Component } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import { sendOpsError } from './ops-errors.ts';

export interface OpsServer extends Component {
  readonly url: string;
}

/** The ops router on a port of its own (`PAYSYNC_OPS_PORT` different from the receiver's). */
export function createOpsServer(options: {
  readonly routes: RequestHandler;
  readonly port: number;
  /** @defaultValue `0.0.0.0` */
  readonly host?: string;
  readonly logger: Logger;
}): OpsServer {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(options.routes);
  app.use((_request, response) => sendOpsError(response, 404, 'not_found', 'no such route'));
  const host = options.host ?? '0.0.0.0';
  let server: Server | undefined;
  let port: number | undefined;
  return {
    name: 'ops',
    get url() {
      if (port === undefined) throw new Error('the ops server has not started');
      return `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
    },
    async start() {
      const created = createServer(app);
      await new Promise<void>((resolve, reject) => {
        created.once('error', reject);
        created.listen(options.port, host, () => {
          created.off('error', reject);
          resolve();
        });
      });
      server = created;
      port = (created.address() as AddressInfo).port;
      options.logger.info({ url: this.url }, 'ops server listening');
    },
    async stop() {
      if (!server) return;
      const closing = server;
      server = undefined;
      await new Promise<void>((resolve) => {
        closing.close(() => resolve());
        closing.closeIdleConnections();
      });
    },
  };
}
